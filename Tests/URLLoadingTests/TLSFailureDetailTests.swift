import Testing

@testable import URLLoading

/// The TLS failures recognized in curl's error detail (TLS-11, TLS-12), read as ASCII bytes: every
/// failed transfer's detail passes through, so most are not TLS at all.
@Suite("TLS failure detail: refused certificates and version mismatches in curl's words")
struct TLSFailureDetailTests {
    @Test("TLS-11: OpenSSL's alerts for a missing or refused client certificate, in any case", arguments: [
        ("OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0", true),
        ("OpenSSL SSL_read: error:0A000412:SSL routines::SSLV3 ALERT BAD CERTIFICATE, errno 0", false),
        ("error:0A000418:SSL routines::tlsv1 alert unknown ca", false),
        ("error:0A000416:SSL routines::sslv3 alert certificate unknown", false),
    ])
    func refusedCertificates(detail: String, required: Bool) throws {
        let (code, message) = try #require(TLSFailureDetail.classify(detail, configuration: nil))
        #expect(code == .clientCertificateRejected)
        #expect(message.contains(required ? "none was presented" : "rejected the client certificate"))
    }

    @Test("TLS-12: no TLS version in common names the allowed range")
    func versionMismatch() throws {
        var configuration = SessionConfiguration.default
        configuration.tlsMinimumVersion = .tls13
        let detail = "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version"
        let (code, message) = try #require(TLSFailureDetail.classify(detail, configuration: configuration))
        #expect(code == .secureConnectionFailed)
        #expect(message.contains("TLS 1.3 to the newest"))
        #expect(TLSFailureDetail.classify("SSL: Wrong Version Number", configuration: nil)?.0 == .secureConnectionFailed)
    }

    @Test("Details that are not about TLS, shorter than every phrase, or with the phrase cut short are left alone", arguments: [
        "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
        "",
        "alert",
        "tlsv13 alert certificate requir",
        "Operation timed out after 30000 milliseconds with 0 bytes received",
        "zurückgewiesen: alert · certificate required",
    ])
    func unrelated(detail: String) {
        #expect(TLSFailureDetail.classify(detail, configuration: nil) == nil)
    }
}
