import ArgumentParser
import Foundation
import URLLoading

/// What each request carries: headers, method and body.
struct RequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("Add a request header; repeat for more.", valueName: "Name: value"))
    var headers: [String] = []

    @Option(
        name: [.customShort("X"), .customLong("request")],
        help: ArgumentHelp("Use <method> instead of GET (or POST/PUT implied by --data/--upload-file).", valueName: "method"))
    var method: String?

    @Option(
        name: .customLong("data"),
        help: ArgumentHelp(
            """
            Send <data> as the body, byte for byte; @FILE sends a file, @- standard input. Implies POST \
            and, unless -H sets one, Content-Type: application/x-www-form-urlencoded.
            """,
            valueName: "data"))
    var data: String?

    @Option(
        name: [.customShort("T"), .customLong("upload-file")],
        help: ArgumentHelp(
            "Send <file> as the body (PUT unless -X); Content-Type is guessed from its extension unless -H sets it.",
            valueName: "file"))
    var uploadFile: String?

    @Option(
        name: [.customShort("u"), .customLong("user")],
        help: ArgumentHelp(
            "Answer the server's Basic or Digest challenge with <user:password> (for the command's own hosts only).",
            valueName: "user:password"))
    var user: String?

    mutating func validate() throws {
        do {
            _ = try headerLines()
        } catch {
            throw ValidationError(error.description)
        }
        if let method, method.isEmpty || !method.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }) {
            throw ValidationError("-X '\(method)': a method is letters only (GET, POST, DELETE, ...)")
        }
        if let user {
            do {
                _ = try CommandLineCredentials.parse(user)
            } catch {
                throw ValidationError(error.description)
            }
        }
        if data != nil, uploadFile != nil {
            throw ValidationError("--data and --upload-file both give a body; use one")
        }
    }

    /// The request shape every URL gets. Reads `--data @FILE` and checks `--upload-file` once, so a
    /// batch neither reads standard input twice nor finds out about a missing file halfway through.
    func makeTemplate() throws(UsageError) -> RequestTemplate {
        var headers = HTTPHeaders()
        for line in try headerLines() { headers.add(name: line.name, value: line.value) }
        var body: Data?
        var upload: URL?
        var impliedMethod = "GET"
        if let data {
            body = try DataArgument.bytes(of: data)
            impliedMethod = "POST"
            if !headers.contains("Content-Type") { headers["Content-Type"] = "application/x-www-form-urlencoded" }
        }
        if let uploadFile {
            try InputFile.requireReadableRegularFile(uploadFile, argument: "--upload-file \(uploadFile)")
            upload = URL(fileURLWithPath: uploadFile)
            impliedMethod = "PUT"
        }
        return RequestTemplate(method: method ?? impliedMethod, headers: headers, body: body, uploadFile: upload)
    }

    /// `-u`: the storage that answers challenges from `urls`' hosts with the credential; nil without -u.
    func credentialStorage(for urls: [URL]) throws(UsageError) -> CommandLineCredentials? {
        guard let user else { return nil }
        return CommandLineCredentials(credential: try CommandLineCredentials.parse(user), urls: urls)
    }

    private func headerLines() throws(UsageError) -> [HeaderLine] {
        try HeaderLine.parsing(headers)
    }
}

/// The parts of a request that are the same for every URL of one command.
struct RequestTemplate: Sendable {
    let method: String
    let headers: HTTPHeaders
    /// `--data`: small enough for memory, sent as the request's own body.
    let body: Data?
    /// `--upload-file`: streamed from disk by an upload task.
    let uploadFile: URL?

    func request(for url: URL) -> TransferRequest {
        TransferRequest(url: url, method: method, headers: headers, body: body)
    }
}
