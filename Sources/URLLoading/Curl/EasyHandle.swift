import Foundation
internal import CCurl

/// A curl easy handle with typed, checked option setters. Loop-confined; freed with `cleanup()` on
/// the loop thread, never in a deinit.
struct EasyHandle {
    let raw: UnsafeMutableRawPointer
    /// curl writes its human-readable failure detail here (CURLOPT_ERRORBUFFER).
    let errorBuffer: UnsafeMutablePointer<CChar>
    private(set) var headerList: UnsafeMutablePointer<curl_slist>?
    /// Lines sent only to the proxy, on the CONNECT of a tunnel (CURLOPT_PROXYHEADER).
    private(set) var proxyHeaderList: UnsafeMutablePointer<curl_slist>?

    static func make() -> EasyHandle? {
        guard let raw = curl_easy_init() else { return nil }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        _ = ferry_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
        return EasyHandle(raw: raw, errorBuffer: errorBuffer, headerList: nil, proxyHeaderList: nil)
    }

    func set(_ option: CURLoption, _ value: Int, _ name: StaticString) throws(TransferError) {
        try check(ferry_easy_setopt_long(raw, option, value), name)
    }

    func set(_ option: CURLoption, offset value: Int64, _ name: StaticString) throws(TransferError) {
        try check(ferry_easy_setopt_off(raw, option, curl_off_t(value)), name)
    }

    func set(_ option: CURLoption, string value: String, _ name: StaticString) throws(TransferError) {
        try check(ferry_easy_setopt_string(raw, option, value), name)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, _ name: StaticString) throws(TransferError) {
        try check(ferry_easy_setopt_pointer(raw, option, value), name)
    }

    func set(_ option: CURLoption, blob value: Data, _ name: StaticString) throws(TransferError) {
        var copy = value
        let code = copy.withUnsafeMutableBytes { bytes -> CURLcode in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return CURLE_BAD_FUNCTION_ARGUMENT }
            return ferry_easy_setopt_blob(raw, option, base, bytes.count)
        }
        try check(code, name)
    }

    func set(_ option: CURLoption, callback: ferry_data_callback, _ name: StaticString) throws(TransferError) {
        try check(ferry_easy_setopt_data_callback(raw, option, callback), name)
    }

    /// Sends exactly these header lines ("Name: value", or "Name:" to suppress one of curl's own).
    mutating func setHeaderLines(_ lines: [String]) throws(TransferError) {
        let list = try Self.slist(lines)
        curl_slist_free_all(headerList)
        headerList = list
        try check(ferry_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
    }

    /// Sends these lines to the proxy only, with a tunnel's CONNECT; the request's own header lines
    /// then go to the origin server only (CURLHEADER_SEPARATE).
    mutating func setProxyHeaderLines(_ lines: [String]) throws(TransferError) {
        let list = try Self.slist(lines)
        curl_slist_free_all(proxyHeaderList)
        proxyHeaderList = list
        try set(CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE), "CURLOPT_HEADEROPT")
        try check(ferry_easy_setopt_slist(raw, CURLOPT_PROXYHEADER, list), "CURLOPT_PROXYHEADER")
    }

    private static func slist(_ lines: [String]) throws(TransferError) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw TransferError(.unknown, "out of memory building request headers")
            }
            list = appended
        }
        return list
    }

    func info(_ item: CURLINFO) -> Int? {
        var value = 0
        return ferry_easy_getinfo_long(raw, item, &value) == CURLE_OK ? value : nil
    }

    func info(offset item: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        return ferry_easy_getinfo_off(raw, item, &value) == CURLE_OK ? Int64(value) : nil
    }

    func info(string item: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard ferry_easy_getinfo_string(raw, item, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    var errorDetail: String {
        String(cString: errorBuffer)
    }

    func pause(_ mask: Int) -> CURLcode {
        curl_easy_pause(raw, Int32(mask))
    }

    /// Frees the handle, its header list and its error buffer. The handle must be out of the multi.
    func cleanup() {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        curl_slist_free_all(proxyHeaderList)
        errorBuffer.deallocate()
    }

    private func check(_ code: CURLcode, _ name: StaticString) throws(TransferError) {
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            throw TransferError(
                code == CURLE_UNKNOWN_OPTION || code == CURLE_NOT_BUILT_IN ? .unsupportedURL : .unknown,
                "libcurl refused \(name): \(reason)", curlCode: Int(code.rawValue), curlDetail: reason)
        }
    }
}
