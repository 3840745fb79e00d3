import FerryVault
import Foundation

/// `jobs.resume_data` sealed whole, for the job (associated data: `jobs.resume_data` and its id):
/// the engine's resume data repeats every request header (Authorization and Cookie among them) and
/// its shape is the engine's to change. Only what carries no secret and is read in SQL stays beside the
/// box in plain text: `partial_file` (the statements that cancel or delete a job unlink that file) and
/// `offset` (how far the stored resume data reaches, which operators and tests compare with
/// `bytes_done`).
///
/// Stored: `{"partial_file": "…", "offset": N, "sealed": {"key_id", "box"}}`.
package enum SealedResumeData {
    package static let column = "jobs.resume_data"
    static let plainKeys = ["partial_file", "offset"]

    package static func associatedData(job: UUID) -> Data {
        VaultKeyring.associatedData(column: column, row: job)
    }

    /// What to store for the engine's resume data `text` (nil stays nil).
    package static func json(_ text: String?, job: UUID, keyring: VaultKeyring) throws -> String? {
        guard let text else { return nil }
        return try resealed(text, job: job, keyring: keyring) ?? text
    }

    /// The stored value sealed under the current key (plain resume data stored before sealing
    /// existed, or a box under an older key); nil when it already was.
    package static func resealed(_ stored: String, job: UUID, keyring: VaultKeyring) throws -> String? {
        let document = try SealedJSONDocument.object(stored)
        let associatedData = associatedData(job: job)
        let sealed: SealedSecret
        if let existing = SealedSecret(jsonObject: document["sealed"]) {
            sealed = try keyring.resealed(existing, associatedData: associatedData)
            if sealed == existing { return nil }
        } else {
            sealed = try keyring.seal(Data(stored.utf8), associatedData: associatedData)
        }
        var stored: [String: Any] = ["sealed": sealed.jsonObject]
        for key in plainKeys { stored[key] = document[key] }
        return try SealedJSONDocument.text(stored)
    }

    /// The engine's resume data as `reading` asks: opened, or none (views never show it).
    package static func decode(_ stored: String?, job: UUID, reading: SecretReading) throws -> String? {
        guard let stored, case .open(let keyring) = reading else { return nil }
        guard let sealed = SealedSecret(jsonObject: try SealedJSONDocument.object(stored)["sealed"]) else {
            return stored  // stored before sealing existed, and not yet sealed at start
        }
        return String(decoding: try keyring.open(sealed, associatedData: associatedData(job: job)), as: UTF8.self)
    }
}
