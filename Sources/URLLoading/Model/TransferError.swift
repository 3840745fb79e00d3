import Foundation

/// A client-side failure (ER-01): HTTP 4xx and 5xx are responses, never errors.
///
/// `code` is stable and meant for programs; `message` is for people; `curlCode` and `curlDetail` keep
/// what libcurl said, for diagnosis.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable, CaseIterable {
        case cancelled = "cancelled"
        case timedOut = "timed_out"
        case cannotFindHost = "cannot_find_host"
        case cannotConnectToHost = "cannot_connect_to_host"
        case cannotConnectToProxy = "cannot_connect_to_proxy"
        /// The session's connection policy refused the address (SSRF protection).
        case destinationForbidden = "destination_forbidden"
        case networkConnectionLost = "network_connection_lost"
        case badServerResponse = "bad_server_response"
        case tooManyRedirects = "too_many_redirects"
        case redirectToUnsupportedURL = "redirect_to_unsupported_url"
        case unsupportedURL = "unsupported_url"
        case badURL = "bad_url"
        case secureConnectionFailed = "secure_connection_failed"
        case serverCertificateUntrusted = "server_certificate_untrusted"
        case clientCertificateRejected = "client_certificate_rejected"
        case userAuthenticationRequired = "user_authentication_required"
        case fileDoesNotExist = "file_does_not_exist"
        case fileIsDirectory = "file_is_directory"
        case noPermissionsToReadFile = "no_permissions_to_read_file"
        case cannotOpenFile = "cannot_open_file"
        case cannotWriteToFile = "cannot_write_to_file"
        /// Writing a download's file failed because its file system is full (ENOSPC) or the user's disk
        /// quota is used up (EDQUOT): told apart from other write failures so that a caller can say so.
        case insufficientStorage = "insufficient_storage"
        case cannotReadUploadBody = "cannot_read_upload_body"
        case dataLengthExceedsMaximum = "data_length_exceeds_maximum"
        case cannotDecodeContentData = "cannot_decode_content_data"
        case sessionInvalidated = "session_invalidated"
        /// `returnCacheDataDontLoad` found nothing in the cache: the request may not go to the network (CA-08).
        case resourceUnavailable = "resource_unavailable"
        /// The request itself is unusable: a header with a line break, an upload to a file: URL, ...
        case invalidRequest = "invalid_request"
        case unknown = "unknown"
    }

    public var code: Code
    public var message: String
    /// The URL the failing request was for (ER-06).
    public var failingURL: URL?
    public var curlCode: Int?
    public var curlDetail: String?
    /// For a download that failed mid-body (connection lost, timed out, ...) or was cancelled with
    /// `cancelProducingResumeData()`: what continues it with `Session.downloadTask(withResumeData:)`
    /// (DL-08, ER-05). Its partial file was kept; nil when the download cannot be continued (DL-10).
    public var resumeData: ResumeData?

    public init(_ code: Code, _ message: String, failingURL: URL? = nil, curlCode: Int? = nil, curlDetail: String? = nil) {
        self.code = code
        self.message = message
        self.failingURL = failingURL
        self.curlCode = curlCode
        self.curlDetail = curlDetail
    }

    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let failingURL { text += " (\(failingURL.absoluteString))" }
        if let curlDetail, !curlDetail.isEmpty, !message.contains(curlDetail) { text += " [curl: \(curlDetail)]" }
        return text
    }

    static func cancelled(_ url: URL?) -> TransferError {
        TransferError(.cancelled, "the transfer was cancelled", failingURL: url)
    }
}
