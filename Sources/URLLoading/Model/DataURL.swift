import Foundation

/// A decoded `data:` URL (RFC 2397, PR-01): `data:[<media type>][;base64],<data>`.
struct DataURL: Equatable {
    var contentType: String
    var body: Data

    static func decode(_ url: URL) throws(TransferError) -> DataURL {
        let text = url.absoluteString
        guard text.lowercased().hasPrefix("data:"), let comma = text.firstIndex(of: ",") else {
            throw TransferError(.badURL, "a data: URL needs a comma before its data", failingURL: url)
        }
        let meta = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let payload = String(text[text.index(after: comma)...])
        var parameters = meta.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let isBase64 = parameters.last?.lowercased() == "base64"
        if isBase64 { parameters.removeLast() }
        var contentType = parameters.joined(separator: ";").removingPercentEncoding ?? ""
        if contentType.isEmpty || contentType.hasPrefix(";") { contentType = "text/plain;charset=US-ASCII" + contentType }

        guard let bytes = percentDecoded(payload) else {
            throw TransferError(.badURL, "the data: URL has invalid percent-encoding", failingURL: url)
        }
        if isBase64 {
            let compact = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
            let padded = compact + String(repeating: "=", count: (4 - compact.count % 4) % 4)
            guard let data = Data(base64Encoded: padded) else {
                throw TransferError(.badURL, "the data: URL's base64 payload is invalid", failingURL: url)
            }
            return DataURL(contentType: contentType, body: data)
        }
        return DataURL(contentType: contentType, body: Data(bytes))
    }

    /// Percent-decodes to raw bytes (the payload may be binary, not UTF-8).
    private static func percentDecoded(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
