import ArgumentParser
import Foundation
import URLLoading

/// `ferry get`: the engine from the command line, like curl with `--fail`.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download URLs, like curl: to standard output, to a file, or a list of them into a directory.",
        usage: """
            ferry get <url> [-o <file>] [<options>]
            ferry get <url> --parts <dir> [<options>]
            ferry get -i <list> -d <dir> [--parallel <n>] [<options>]
            ferry get --background <name> [<url> -o <file>] [<options>]
            """,
        discussion: """
            Without -o the body is written to standard output as it arrives. With -o it is written \
            beside <file> and renamed into place once complete: <file> never holds a partial body.

            With -i, <list> has one URL a line; blank lines and lines starting with # are skipped. \
            Each URL is saved in <dir> (created if missing) under the last component of its path. \
            When URLs share a name, the first in the list keeps it and the later ones get .1, .2, ... \
            appended (a.bin, a.bin.1, a.bin.2), so none overwrites another. Existing files in <dir> \
            are replaced. A URL whose path has no last component is a usage error.

            A multipart/x-mixed-replace response (a stream of parts, each replacing the one before) \
            is written as its last part: with -o, <file> gets the last complete part only. With \
            --parts <dir> (created if missing), each part goes to its own file there as it arrives: \
            part-0001, part-0002, ... in order, with no extension (-v shows each part's headers, its \
            Content-Type among them); any other response is one part, part-0001. Files of those \
            names are replaced; a part cut short by a failure is removed, the parts before it stay. \
            To standard output, the parts' bodies are written one after another as they arrive.

            Redirects are followed (up to --max-redirs). A response outside 2xx fails the transfer, \
            and its body is not kept.

            With --cache-dir, responses are kept in an HTTP cache there (RFC 9111, as a private \
            cache): a second identical request is served from it while fresh, or revalidated with \
            the origin (If-None-Match / If-Modified-Since); -v says which. -b reads cookies from a \
            Netscape cookie jar (curl's format), -c writes every cookie there at the end; cookies \
            set by responses are sent on later requests and redirects of the same run.

            With -u user:password, a server's Basic or Digest challenge (whichever it sent) is \
            answered, for the hosts of the command's URLs only; a rejected password fails the transfer \
            with HTTP 401.

            With -C - (or --continue), an existing output file is continued from its size with a Range \
            request and the rest appended. A server that answers 416 has nothing more (the file is \
            complete); one that ignores the range fails the transfer and the file is left as it was.

            With --background <name>, the download (one URL, with -o) is kept in background session \
            <name> until it completes: stopped by Ctrl-C, killed or cut off, it stays outstanding, and \
            `ferry get --background <name>` (with or without another URL) continues every outstanding \
            download of <name> from its partial file when the server still has the same version (ETag \
            or Last-Modified), else from the start, and writes each to its -o file. Network failures \
            (refused, reset, timed out, unknown host) are retried with backoff until --max-time \
            (default: 7 days). The session's state is kept in --background-dir, by default \
            $XDG_STATE_HOME/ferry/background/<name> (~/.local/state/... without XDG_STATE_HOME); \
            credentials (-u, an Authorization header) are not kept there: give them again when \
            continuing. Only one command at a time can use a background session.

            A progress bar is drawn on standard error when it is a terminal, except with -s or when \
            the body itself goes to the terminal.

            Exit status: 0 when every transfer succeeded (a 2xx response, or a successful ftp, file \
            or data transfer); 22 when a server answered with another status; 1 when a transfer \
            failed otherwise (connection, timeout, too many redirects, writing the file ...), which \
            wins over 22 when both happen; 2 for usage errors; 130 when interrupted. Each failure \
            prints one line on standard error: "ferry: <url>: HTTP <status>" or \
            "ferry: <url>: <code>: <message>".
            """
    )

    @Argument(help: ArgumentHelp("The URL to fetch: http, https, ftp, ftps, file or data.", valueName: "url"))
    var url: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Save the body to <file> ('-': standard output).", valueName: "file"))
    var output: String?

    @Option(
        name: [.customShort("i"), .customLong("input-file")],
        help: ArgumentHelp("Fetch every URL listed in <list>, one a line (needs -d).", valueName: "list"))
    var inputFile: String?

    @Option(
        name: [.customShort("d"), .customLong("output-dir")],
        help: ArgumentHelp("With -i: save the files in <dir>.", valueName: "dir"))
    var outputDirectory: String?

    /// Optional rather than defaulted, so that giving it without -i can be refused.
    @Option(
        name: .customLong("parallel"), parsing: .unconditional,
        help: ArgumentHelp("With -i: run up to <n> transfers at once (default: \(Self.defaultParallel)).", valueName: "n"))
    var parallel: Int?

    @Option(
        name: [.customShort("C"), .customLong("continue-at")],
        help: ArgumentHelp("'-C -': continue a partial output file from its size (a Range request, as curl does).",
                           valueName: "-"))
    var continueAt: String?

    @Flag(name: .customLong("continue"), help: "The same as -C -.")
    var continuePartialFile = false

    @Option(
        name: .customLong("parts"),
        help: ArgumentHelp(
            "Save each part of a multipart/x-mixed-replace response as <dir>/part-0001, part-0002, ... (created if missing).",
            valueName: "dir"))
    var partsDirectory: String?

    @Option(
        name: .customLong("background"),
        help: ArgumentHelp(
            "Keep the download in background session <name> until it completes; without a URL, finish <name>'s outstanding downloads.",
            valueName: "name"))
    var background: String?

    @Option(
        name: .customLong("background-dir"),
        help: ArgumentHelp(
            "With --background: keep the session's state in <dir> (default: $XDG_STATE_HOME/ferry/background/<name>).",
            valueName: "dir"))
    var backgroundDirectory: String?

    @OptionGroup(title: "Request options")
    var request: RequestOptions

    @OptionGroup(title: "Connection options")
    var connection: ConnectionOptions

    @OptionGroup(title: "Cache and cookie options")
    var storage: StorageOptions

    @OptionGroup(title: "TLS options")
    var tls: TLSOptions

    @Flag(name: [.customShort("s"), .customLong("silent")], help: "No progress bar. Failures are still reported.")
    var silent = false

    @Flag(
        name: [.customShort("v"), .customLong("verbose")],
        help: "Print each request, response status and headers on standard error.")
    var verbose = false

    static let defaultParallel = 8

    mutating func validate() throws {
        if background != nil || backgroundDirectory != nil {
            try validateBackground()
            return
        }
        switch (url, inputFile) {
        case (nil, nil): throw ValidationError("give a URL, or -i <list> -d <dir>")
        case (.some, .some): throw ValidationError("give either a URL or -i <list>, not both")
        case (.some(let url), nil):
            if outputDirectory != nil { throw ValidationError("-d is for -i lists; for one URL use -o <file>") }
            if parallel != nil { throw ValidationError("--parallel is for -i lists") }
            if output == "" { throw ValidationError("-o needs a file name ('-' for standard output)") }
            if partsDirectory != nil, output != nil { throw ValidationError("give either -o <file> (the last part) or --parts <dir>, not both") }
            if partsDirectory == "" { throw ValidationError("--parts needs a directory") }
            do {
                _ = try TargetURL.parse(url)
            } catch {
                throw ValidationError(error.description)
            }
        case (nil, .some):
            if output != nil { throw ValidationError("-o is for one URL; with -i, use -d <dir>") }
            if partsDirectory != nil { throw ValidationError("--parts is for one URL") }
            guard let outputDirectory, !outputDirectory.isEmpty else {
                throw ValidationError("-i needs -d <dir>: where to save the files")
            }
        }
        if let continueAt, continueAt != "-" {
            throw ValidationError("-C takes '-' (continue from the output file's size); offsets are not supported")
        }
        if continues {
            if url != nil, output == nil || output == "-" {
                throw ValidationError("-C - continues a file: give -o <file>")
            }
            if request.uploadFile != nil || request.data != nil {
                throw ValidationError("-C - continues downloads; it cannot be combined with --data or --upload-file")
            }
            if partsDirectory != nil { throw ValidationError("-C - continues one file; it cannot be combined with --parts") }
        }
        if partsDirectory != nil, request.uploadFile != nil {
            throw ValidationError("--parts cannot be combined with --upload-file")
        }
        if let parallel, parallel < 1 { throw ValidationError("--parallel must be at least 1 (got \(parallel))") }
    }

    /// `--background`: one URL to a file, or none (take up what is outstanding).
    private func validateBackground() throws {
        guard let background else { throw ValidationError("--background-dir needs --background <name>") }
        if background.isEmpty || background.contains("/") || background == "." || background == ".." {
            throw ValidationError("--background needs a name without '/'")
        }
        if inputFile != nil || outputDirectory != nil || parallel != nil {
            throw ValidationError("--background keeps one URL at a time; it cannot be combined with -i, -d or --parallel")
        }
        if partsDirectory != nil || continues {
            throw ValidationError("--background cannot be combined with --parts or -C -: it continues downloads itself")
        }
        if request.uploadFile != nil || request.data != nil {
            throw ValidationError("--background keeps downloads only; it cannot be combined with --data or --upload-file")
        }
        if backgroundDirectory == "" { throw ValidationError("--background-dir needs a directory") }
        if let url {
            guard let output, !output.isEmpty, output != "-" else {
                throw ValidationError("--background downloads to a file: give -o <file>")
            }
            let parsed: URL
            do {
                parsed = try TargetURL.parse(url)
            } catch {
                throw ValidationError(error.description)
            }
            guard ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else {
                throw ValidationError("--background downloads http and https URLs only")
            }
        } else if output != nil {
            throw ValidationError("-o names the file of a URL: give the URL too")
        }
    }

    mutating func run() async throws {
        if background != nil {
            try await runBackground()
            return
        }
        let createdFileMode = CreatedFileMode.current()
        // A closed pipe (`ferry get URL | head`) must become a reported write error, not a silent death.
        signal(SIGPIPE, SIG_IGN)

        let plan: GetPlan
        let session: Session
        do {
            plan = try makePlan()
            session = try makeSession(for: plan)
        } catch {
            FileHandle.standardError.write(Data(Self.usageErrorMessage(error).utf8))
            throw ExitCode(ExitStatus.usage.code)
        }

        let console = Console()
        if tls.insecure { console.printLines(TLSOptions.insecureWarning) }
        let interruption = InterruptMonitor { session.invalidateAndCancel() }
        let meter =
            showsProgress(plan, console: console) ? ProgressMeter(style: progressStyle(plan), console: console) : nil
        meter?.start()
        var runner = TransferRunner(session: session, createdFileMode: createdFileMode)
        runner.continuesPartialFiles = continues
        var summary = TransferSummary(console: console, interruption: interruption)

        if plan.isBatch {
            let batch = BatchRun(
                runner: runner, parallel: parallel ?? Self.defaultParallel, console: console, meter: meter,
                verbose: verbose, interruption: interruption)
            await batch.run(plan.jobs, into: &summary)
            await meter?.stop()
        } else if let job = plan.jobs.first {
            let reporter = TransferReporter(index: job.index, console: console, meter: meter, verbose: verbose)
            let outcome = await runner.run(job, reporter: reporter)
            // The bar's last state goes above the failure line, if any.
            await meter?.stop()
            summary.record(outcome, of: job)
        }
        session.finishTasksAndInvalidate()
        if let failure = storage.saveCookies(of: session) {
            console.printLines(failure)
            summary.recordLocalFailure()
        }

        if interruption.hasFired {
            console.printLines("ferry: interrupted")
            throw ExitCode(ExitStatus.interrupted.code)
        }
        if summary.exitStatus != .success { throw ExitCode(summary.exitStatus.code) }
    }

    /// Worded like the parser's own usage errors (whose "See ..." line would lack the "ferry" here).
    private static func usageErrorMessage(_ error: UsageError) -> String {
        let usage = (configuration.usage ?? "").replacingOccurrences(of: "\n", with: "\n       ")
        return "Error: \(error.description)\nUsage: \(usage)\n  See 'ferry get --help' for more information.\n"
    }

    private func makePlan() throws(UsageError) -> GetPlan {
        let template = try request.makeTemplate()
        if let inputFile, let outputDirectory {
            return try GetPlan.batch(listFile: inputFile, directory: outputDirectory, template: template)
        }
        guard let url else { throw UsageError("give a URL, or -i <list> -d <dir>") }
        return try GetPlan.single(url: url, output: output, partsDirectory: partsDirectory, template: template)
    }

    private var continues: Bool { continueAt != nil || continuePartialFile }

    /// `--background <name>`: the URL given (if any) and every outstanding download of `<name>`.
    private func runBackground() async throws {
        let createdFileMode = CreatedFileMode.current()
        signal(SIGPIPE, SIG_IGN)
        var job: TransferJob?
        let configuration: SessionConfiguration
        do {
            let template = try request.makeTemplate()
            if let url { job = try GetPlan.single(url: url, output: output, template: template).jobs.first }
            configuration = try makeConfiguration(for: GetPlan(jobs: job.map { [$0] } ?? [], isBatch: false))
        } catch {
            FileHandle.standardError.write(Data(Self.usageErrorMessage(error).utf8))
            throw ExitCode(ExitStatus.usage.code)
        }
        let session: Session
        do throws(ConfigurationError) {
            // Takes up the session's outstanding downloads at once (BG-08).
            session = try Session(configuration: configuration)
        } catch {
            // Most often another ferry command is running this background session (BG-23).
            FileHandle.standardError.write(Data("ferry: \(error.description)\n".utf8))
            throw ExitCode(ExitStatus.transportFailure.code)
        }

        let console = Console()
        if tls.insecure { console.printLines(TLSOptions.insecureWarning) }
        let name = background ?? ""
        // Stopping keeps the downloads outstanding (cancelling them would drop them from the store).
        let interruption = InterruptMonitor {
            Console().printLines("ferry: interrupted; `ferry get --background \(name)` continues the download")
            _exit(ExitStatus.interrupted.code)
        }
        let transfers = session.rejoinedTasks.count + (job == nil ? 0 : 1)
        let meter: ProgressMeter? = console.isTerminal && !silent
            ? ProgressMeter(style: transfers > 1 ? .batch(fileCount: transfers) : .singleTransfer, console: console) : nil
        meter?.start()
        var summary = TransferSummary(console: console, interruption: interruption)
        await BackgroundGet(session: session, createdFileMode: createdFileMode, console: console, meter: meter, verbose: verbose)
            .run(job, into: &summary)
        await meter?.stop()
        session.finishTasksAndInvalidate()
        // Completed downloads leave the store before the process ends.
        await session.waitUntilInvalidated()
        if let failure = storage.saveCookies(of: session) {
            console.printLines(failure)
            summary.recordLocalFailure()
        }
        if summary.exitStatus != .success { throw ExitCode(summary.exitStatus.code) }
    }

    /// The background configuration of `--background <name>`, with its store.
    private func backgroundConfiguration() -> SessionConfiguration? {
        guard let background else { return nil }
        let store = backgroundDirectory.map { BackgroundTaskDirectory(directory: URL(fileURLWithPath: $0, isDirectory: true)) }
        return .background(identifier: background, store: store)
    }

    private func makeSession(for plan: GetPlan) throws(UsageError) -> Session {
        let configuration = try makeConfiguration(for: plan)
        do {
            return try Session(configuration: configuration)
        } catch {
            throw UsageError(error.description)
        }
    }

    private func makeConfiguration(for plan: GetPlan) throws(UsageError) -> SessionConfiguration {
        let connectionsPerHost = plan.isBatch ? parallel ?? Self.defaultParallel : nil
        var configuration = try connection.sessionConfiguration(
            connectionsPerHost: connectionsPerHost, persistent: storage.needsPersistentSession,
            background: backgroundConfiguration())
        try storage.apply(to: &configuration)
        try tls.apply(to: &configuration)
        if let credentials = try request.credentialStorage(for: plan.jobs.map(\.request.url)) {
            configuration.credentialStorage = credentials
        }
        return configuration
    }

    /// Only on a terminal, unless -s, and not when the body itself is going to that terminal.
    private func showsProgress(_ plan: GetPlan, console: Console) -> Bool {
        guard console.isTerminal, !silent else { return false }
        let bodyToTerminal = plan.jobs.contains { job in
            if case .standardOutput = job.destination { return isatty(STDOUT_FILENO) == 1 }
            return false
        }
        return !bodyToTerminal
    }

    private func progressStyle(_ plan: GetPlan) -> ProgressMeter.Style {
        plan.isBatch ? .batch(fileCount: plan.jobs.count) : .singleTransfer
    }
}
