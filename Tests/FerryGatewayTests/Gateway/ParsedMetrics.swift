import Foundation

/// `/metrics` as Prometheus itself reads it: the text goes through the reference Python client's
/// parser (`prometheus_client.parser.text_string_to_metric_families`, Debian's
/// python3-prometheus-client, installed by `scripts/install-deps`), which refuses what a Prometheus
/// server would refuse, and the families it found come back as values to check.
struct ParsedMetrics: Sendable {
    struct Sample: Sendable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Family: Sendable {
        var name: String
        /// counter, gauge, histogram, ...
        var type: String
        var help: String
        var samples: [Sample]
    }

    struct ParseFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// By family name as the parser names it: a counter's family drops the `_total` of its samples.
    let families: [String: Family]

    subscript(_ family: String) -> Family? { families[family] }

    /// The value of the sample `name` with exactly `labels`, nil when there is none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        families.values.lazy.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample named `name`.
    func samples(_ name: String) -> [Sample] {
        families.values.flatMap(\.samples).filter { $0.name == name }
    }

    private static let script = """
        import json, math, sys
        from prometheus_client.parser import text_string_to_metric_families
        families = []
        for family in text_string_to_metric_families(sys.stdin.read()):
            families.append({"name": family.name, "type": family.type, "help": family.documentation, "samples": [
                {"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)}
                for s in family.samples]})
        json.dump(families, sys.stdout)
        """

    /// Parses `text`; throws with the parser's complaint when it is not valid exposition text.
    static func parse(_ text: String) throws -> ParsedMetrics {
        // Through a file: the parser's answer is read only after the whole text went in.
        let textFile = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: textFile)
        defer { try? FileManager.default.removeItem(at: textFile) }
        let process = Process()
        // Debian's interpreter, where the Debian package installs the parser (not a python3 earlier
        // in PATH, such as a pyenv shim).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: textFile)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ParseFailure(description: "the Prometheus parser refused the text: \(String(decoding: stderr, as: UTF8.self))")
        }
        guard let parsed = try JSONSerialization.jsonObject(with: stdout) as? [[String: Any]] else {
            throw ParseFailure(description: "the parser's answer is not a list of families")
        }
        var families: [String: Family] = [:]
        for family in parsed {
            let samples = (family["samples"] as? [[String: Any]] ?? []).map { sample in
                Sample(
                    name: sample["name"] as? String ?? "", labels: sample["labels"] as? [String: String] ?? [:],
                    value: (sample["value"] as? Double) ?? Double(sample["value"] as? String ?? "") ?? .nan)
            }
            let name = family["name"] as? String ?? ""
            families[name] = Family(
                name: name, type: family["type"] as? String ?? "", help: family["help"] as? String ?? "", samples: samples)
        }
        return ParsedMetrics(families: families)
    }
}
