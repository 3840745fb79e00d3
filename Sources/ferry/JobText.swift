import Foundation

/// Jobs as text for people: one job's details (`ferry status`), a table of jobs (`ferry list`).
/// Pure, so what is shown depends only on the jobs.
enum JobText {
    /// `label: value` lines, labels aligned; lines without a value are left out.
    static func details(_ job: GatewayJob) -> String {
        var rows: [(String, String)] = [
            ("id", job.id),
            ("kind", job.kind.rawValue),
            ("state", job.state.rawValue + (job.stopRequested.map { " (\($0.rawValue) requested)" } ?? "")),
            ("request", "\(job.request.method) \(job.request.url)"),
            ("progress", progress(job)),
            ("attempt", "\(job.attempt) of \(job.maxAttempts)"),
        ]
        if let status = job.response?.status { rows.append(("response", "HTTP \(status)")) }
        if let result = job.result { rows.append(("result", "\(result.size) bytes, sha256 \(result.sha256)")) }
        if let error = job.error { rows.append(("error", "\(error.code): \(error.message)")) }
        rows.append(("created", timestamp(job.createdAt)))
        if let finishedAt = job.finishedAt { rows.append(("finished", timestamp(finishedAt))) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in
            label + ":" + String(repeating: " ", count: width - label.count + 2) + value
        }.joined(separator: "\n")
    }

    /// A header and one row a job, columns aligned; the URL last, as it is the longest.
    static func table(_ jobs: [GatewayJob]) -> String {
        let header = ["ID", "KIND", "STATE", "PROGRESS", "URL"]
        let rows = jobs.map { job in [job.id, job.kind.rawValue, job.state.rawValue, progress(job), job.request.url] }
        let all = [header] + rows
        let widths = (0..<header.count - 1).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let padded = zip(row.dropLast(), widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) }
            return (padded + [row.last ?? ""]).joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// "292.9 KiB / 292.9 KiB" when the size is known, else the bytes so far.
    static func progress(_ job: GatewayJob) -> String {
        let done = ProgressLine.byteCount(Int64(job.progress.bytesDone))
        guard let expected = job.progress.bytesExpected else { return done }
        return "\(done) / \(ProgressLine.byteCount(Int64(expected)))"
    }

    /// As the API wrote it (RFC 3339, milliseconds, UTC).
    static func timestamp(_ date: Date) -> String {
        (try? GatewayConnection.dateTranscoder.encode(date)) ?? "\(date)"
    }
}
