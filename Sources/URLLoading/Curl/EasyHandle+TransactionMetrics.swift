import Foundation
internal import CCurl

extension EasyHandle {
    /// What curl measured of the hop this handle ran. curl's times are microseconds from the hop's
    /// start, each including the phases before it; a phase that did not happen reads 0 (nil here),
    /// and on a reused connection the lookup, connect and handshake belong to an earlier hop.
    func transactionMetrics(url: URL, fetchStart: Date, outcome: TransactionMetrics.Outcome) -> TransactionMetrics {
        func offset(_ item: CURLINFO) -> Duration? {
            guard let micros = info(offset: item), micros > 0 else { return nil }
            return .microseconds(micros)
        }
        let scheme = url.scheme?.lowercased() ?? ""
        let isHTTP = scheme == "http" || scheme == "https"
        let connects = scheme != "file"
        let reused = connects && (info(CURLINFO_NUM_CONNECTS) ?? 0) == 0
        let status = info(CURLINFO_RESPONSE_CODE).flatMap { $0 > 0 ? $0 : nil }
        let port = info(CURLINFO_PRIMARY_PORT).flatMap { $0 > 0 ? $0 : nil }
        let address = info(string: CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
        return TransactionMetrics(
            request: url, statusCode: status, outcome: outcome, fetchStart: fetchStart,
            nameLookupEnd: reused ? nil : offset(CURLINFO_NAMELOOKUP_TIME_T),
            connectEnd: reused ? nil : offset(CURLINFO_CONNECT_TIME_T),
            secureConnectionEnd: reused ? nil : offset(CURLINFO_APPCONNECT_TIME_T),
            requestStart: offset(CURLINFO_PRETRANSFER_TIME_T), responseStart: offset(CURLINFO_STARTTRANSFER_TIME_T),
            responseEnd: offset(CURLINFO_TOTAL_TIME_T) ?? .zero, isReusedConnection: reused,
            remoteAddress: connects ? address : nil, remotePort: connects ? port : nil,
            networkProtocolName: isHTTP ? Self.httpVersionName(info(CURLINFO_HTTP_VERSION)) : scheme,
            requestHeaderBytes: Int64(isHTTP ? info(CURLINFO_REQUEST_SIZE) ?? 0 : 0),
            requestBodyBytes: info(offset: CURLINFO_SIZE_UPLOAD_T) ?? 0,
            responseHeaderBytes: Int64(info(CURLINFO_HEADER_SIZE) ?? 0),
            responseBodyBytes: info(offset: CURLINFO_SIZE_DOWNLOAD_T) ?? 0)
    }

    private static func httpVersionName(_ version: Int?) -> String? {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0)?: "http/1.0"
        case Int(CURL_HTTP_VERSION_1_1)?: "http/1.1"
        case Int(CURL_HTTP_VERSION_2_0)?: "h2"
        case Int(CURL_HTTP_VERSION_3)?: "h3"
        default: nil
        }
    }
}
