import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// ftp, file and data URLs (PR-01), and the failures each can end in.
@Suite("Protocols", .timeLimit(.minutes(2)))
struct ProtocolTests {
    @Test("data: URLs are decoded by Ferry: base64, percent-encoded and binary (PR-01)")
    func dataURLs() async throws {
        let session = try Fixture.session()
        let (plain, plainResponse) = try await session.data(from: Fixture.url("data:,Hello%2C%20World%21"))
        #expect(String(decoding: plain, as: UTF8.self) == "Hello, World!")
        #expect(plainResponse.mimeType == "text/plain")
        #expect(plainResponse.statusCode == nil)

        let (base64, response) = try await session.data(from: Fixture.url("data:application/octet-stream;base64,AAEC/w=="))
        #expect(base64 == Data([0, 1, 2, 255]))
        #expect(response.mimeType == "application/octet-stream")
        #expect(response.expectedContentLength == 4)

        let (binary, _) = try await session.data(from: Fixture.url("data:application/x-raw,%00%FF%10"))
        #expect(binary == Data([0, 255, 16]))

        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(from: Fixture.url("data:text/plain;base64,@@@"))
        }
        #expect(error?.code == .badURL)
    }

    @Test("a data: URL download hands over a file like any other (PR-01, DL-02)")
    func dataURLDownload() async throws {
        let session = try Fixture.session()
        let contents = try await session.download(for: Fixture.request("data:;base64,ZmVycnk=")) { url, _ in try Data(contentsOf: url) }
        #expect(contents == Data("ferry".utf8))
    }

    @Test("file: URLs read local files; a missing file is file_does_not_exist (PR-01)")
    func fileURLs() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("local.bin")
        try Fixture.pattern(70_000).write(to: file)
        let session = try Fixture.session()
        let (data, response) = try await session.data(from: file)
        #expect(data == Fixture.pattern(70_000))
        #expect(response.statusCode == nil)

        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(from: directory.url.appendingPathComponent("missing.bin"))
        }
        #expect(error?.code == .fileDoesNotExist)

        let uploadError = await #expect(throws: TransferError.self) {
            _ = try await session.upload(for: TransferRequest(url: file, method: "PUT"), from: .data(Data("x".utf8)))
        }
        #expect(uploadError?.code == .invalidRequest)
    }

    @Test("unsupported schemes fail with unsupported_url (PR-01)")
    func unsupportedScheme() async throws {
        let session = try Fixture.session()
        for url in ["gopher://127.0.0.1/", "ldap://127.0.0.1/", "mailto:someone@example.com"] {
            let error = await #expect(throws: TransferError.self) { _ = try await session.data(from: Fixture.url(url)) }
            #expect(error?.code == .unsupportedURL, "\(url)")
        }
    }

    @Test("a refused connection fails with cannot_connect_to_host and curl's detail (ER-01)")
    func connectionRefused() async throws {
        let silent = try SilentServer()
        let port = silent.port
        silent.close()
        let session = try Fixture.session()
        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(from: Fixture.url("http://127.0.0.1:\(port)/"))
        }
        #expect(error?.code == .cannotConnectToHost)
        #expect(error?.curlCode == 7)
        #expect(error?.failingURL?.port == port)
    }

    @Test("a reply that is not HTTP fails with bad_server_response (ER-01)")
    func badServerResponse() async throws {
        let server = try ScriptedServer(reply: "THIS IS NOT HTTP\r\n\r\n")
        defer { server.close() }
        let session = try Fixture.session()
        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(from: Fixture.url("http://127.0.0.1:\(server.port)/"))
        }
        #expect(error?.code == .badServerResponse)
    }

    @Test("ftp downloads and uploads go through a real FTP server (PR-01, TT-05)")
    func ftp() async throws {
        try #require(FTPServer.isAvailable || ProcessInfo.processInfo.environment["CI"] == nil,
                     "python3-pyftpdlib must be installed in CI (scripts/install-deps)")
        guard FTPServer.isAvailable else { return }
        let server = try FTPServer.start(files: ["hello.bin": Fixture.pattern(200_000)])
        defer { server.stop() }
        let session = try Fixture.session()
        let (data, response) = try await session.data(from: Fixture.url(server.url("hello.bin")))
        #expect(data == Fixture.pattern(200_000))
        #expect(response.statusCode == nil)
        #expect(response.expectedContentLength == 200_000)

        let upload = Fixture.pattern(50_000, from: 7)
        _ = try await session.upload(for: TransferRequest(url: Fixture.url(server.url("uploaded.bin")), method: "PUT"), from: .data(upload))
        #expect(try Data(contentsOf: URL(fileURLWithPath: server.directory).appendingPathComponent("uploaded.bin")) == upload)

        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(from: Fixture.url(server.url("missing.bin")))
        }
        #expect(error?.code == .fileDoesNotExist)
    }
}
