import Foundation
internal import CCurl

/// Turns a libcurl result into Ferry's stable error codes, keeping curl's own words as detail.
enum CurlErrorMapping {
    /// `configuration` names the TLS version bounds in a version mismatch's message (TLS-12).
    static func error(for result: CURLcode, detail: String, url: URL, configuration: SessionConfiguration? = nil) -> TransferError {
        var (code, message) = classify(result)
        if result == CURLE_UNSUPPORTED_PROTOCOL, detail.contains("HTTP/0.9") {
            // A reply without a status line: curl calls it HTTP/0.9 and refuses it.
            (code, message) = (.badServerResponse, "the server's reply is not HTTP")
        } else if let tlsFailure = TLSFailureDetail.classify(detail, configuration: configuration) {
            (code, message) = tlsFailure
        }
        let curlText = String(cString: curl_easy_strerror(result))
        let curlDetail = detail.isEmpty ? curlText : detail
        return TransferError(code, message, failingURL: url, curlCode: Int(result.rawValue), curlDetail: curlDetail)
    }

    /// True when curl refused to continue at the offset asked for because the remote file is now
    /// shorter (ftp's SIZE below the REST offset): the partial file is of another version.
    static func isOffsetBeyondEnd(_ error: TransferError) -> Bool {
        error.curlCode == Int(CURLE_BAD_DOWNLOAD_RESUME.rawValue)
    }

    private static func classify(_ result: CURLcode) -> (TransferError.Code, String) {
        switch result {
        case CURLE_OPERATION_TIMEDOUT: (.timedOut, "the request timed out")
        case CURLE_COULDNT_RESOLVE_HOST: (.cannotFindHost, "the host name could not be resolved")
        case CURLE_COULDNT_RESOLVE_PROXY: (.cannotConnectToProxy, "the proxy's host name could not be resolved")
        case CURLE_COULDNT_CONNECT: (.cannotConnectToHost, "could not connect to the server")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING:
            (.networkConnectionLost, "the network connection was lost")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_FTP_WEIRD_PASV_REPLY,
            CURLE_FTP_WEIRD_227_FORMAT, CURLE_HTTP3:
            (.badServerResponse, "the server sent a response Ferry cannot understand")
        case CURLE_BAD_CONTENT_ENCODING: (.cannotDecodeContentData, "the response body could not be decoded")
        case CURLE_UNSUPPORTED_PROTOCOL: (.unsupportedURL, "the URL's scheme is not supported")
        case CURLE_URL_MALFORMAT: (.badURL, "the URL is malformed")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CIPHER,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CACERT_BADFILE,
            CURLE_USE_SSL_FAILED:
            (.secureConnectionFailed, "the TLS connection could not be established")
        case CURLE_PEER_FAILED_VERIFICATION: (.serverCertificateUntrusted, "the server's certificate is not trusted")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            (.serverCertificateUntrusted, "the server's public key matches none of the pinned public keys")
        case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CLIENTCERT:
            (.clientCertificateRejected, "the client certificate could not be used")
        case CURLE_LOGIN_DENIED, CURLE_REMOTE_ACCESS_DENIED:
            (.userAuthenticationRequired, "the server refused the login or access")
        case CURLE_REMOTE_FILE_NOT_FOUND: (.fileDoesNotExist, "the remote file does not exist")
        case CURLE_FILE_COULDNT_READ_FILE: (.fileDoesNotExist, "the file could not be read")
        case CURLE_WRITE_ERROR: (.cannotWriteToFile, "the response body could not be written")
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK, CURLE_SEND_FAIL_REWIND:
            (.cannotReadUploadBody, "the request body could not be read")
        case CURLE_FILESIZE_EXCEEDED: (.dataLengthExceedsMaximum, "the resource is larger than allowed")
        case CURLE_TOO_MANY_REDIRECTS: (.tooManyRedirects, "too many redirects")
        case CURLE_BAD_DOWNLOAD_RESUME: (.badServerResponse, "the file is shorter than the offset to continue at")
        default: (.unknown, "the transfer failed")
        }
    }
}
