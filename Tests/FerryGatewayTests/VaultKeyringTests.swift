import FerryGateway
import FerryModel
import FerryVault
import Foundation
import Logging
import Testing

/// The vault's sealing: AES-256-GCM, a nonce per secret, associated data that ties a
/// secret to its tenant and row, and key rotation (newest seals, all open).
@Suite struct VaultKeyringTests {
    let tenant = UUID()
    let row = UUID()
    let secret = Data("s3cret: pass".utf8)

    static func keyring(_ texts: [String]) throws -> VaultKeyring {
        try VaultKeyring(keys: texts.map { try VaultKey(base64: $0) })
    }

    @Test func aSealedSecretOpensWithItsAssociatedDataAndShowsNoSecretBytes() throws {
        let keyring = try Self.keyring([VaultKey.generateText()])
        let place = VaultKeyring.associatedData(tenant: tenant, row: row)
        let sealed = try keyring.seal(secret, associatedData: place)
        #expect(sealed.keyID == keyring.currentKeyID)
        #expect(sealed.combined.range(of: secret) == nil)
        #expect(try keyring.open(sealed, associatedData: place) == secret)
        // A fresh nonce every time: the same secret never seals to the same bytes.
        #expect(try keyring.seal(secret, associatedData: place).combined != sealed.combined)
    }

    @Test func aSecretDoesNotOpenForAnotherTenantOrRowOrWhenAltered() throws {
        let keyring = try Self.keyring([VaultKey.generateText()])
        let sealed = try keyring.seal(secret, associatedData: VaultKeyring.associatedData(tenant: tenant, row: row))
        #expect(throws: VaultError.cannotOpen) {
            try keyring.open(sealed, associatedData: VaultKeyring.associatedData(tenant: UUID(), row: row))
        }
        #expect(throws: VaultError.cannotOpen) {
            try keyring.open(sealed, associatedData: VaultKeyring.associatedData(tenant: tenant, row: UUID()))
        }
        var altered = sealed
        altered.combined[altered.combined.count / 2] ^= 0x01
        #expect(throws: VaultError.cannotOpen) {
            try keyring.open(altered, associatedData: VaultKeyring.associatedData(tenant: tenant, row: row))
        }
    }

    @Test func theNewestKeySealsAndOldKeysStillOpen() throws {
        let old = VaultKey.generateText()
        let new = VaultKey.generateText()
        let place = VaultKeyring.associatedData(tenant: tenant, row: row)
        let sealedWithOld = try Self.keyring([old]).seal(secret, associatedData: place)
        let rotated = try Self.keyring([new, old])
        #expect(try rotated.open(sealedWithOld, associatedData: place) == secret)
        #expect(try rotated.seal(secret, associatedData: place).keyID == (try VaultKey(base64: new)).id)
        // Once the old key is dropped, what it sealed names the missing key.
        let oldID = try VaultKey(base64: old).id
        #expect(throws: VaultError.unknownKey(id: oldID)) { try Self.keyring([new]).open(sealedWithOld, associatedData: place) }
    }

    @Test(arguments: ["", "not base64!", Data(count: 16).base64EncodedString(), Data(count: 33).base64EncodedString()])
    func keysThatAreNot32BytesOfBase64AreRefused(_ text: String) {
        #expect(throws: VaultError.invalidKey) { try VaultKey(base64: text) }
    }

    @Test func theConfigurationReadsKeysFromTheEnvironmentAndNeverEchoesThem() throws {
        let key = VaultKey.generateText()
        let configuration = try GatewayConfiguration(environment: ["FERRY_VAULT_KEY": "\(key), \(VaultKey.generateText())"], currentDirectory: "/srv")
        guard case .keys(let keys) = configuration.vaultKeySource else {
            Issue.record("expected keys from FERRY_VAULT_KEY, got \(configuration.vaultKeySource)")
            return
        }
        #expect(keys.count == 2)
        #expect(!"\(configuration)".contains(key))
        #expect(GatewayConfiguration(dataDirectory: "/srv/data").vaultKeySource == .defaultFile(dataDirectory: "/srv/data"))

        let bad = "dGhpcyBpcyBub3QgYSBrZXk="
        do {
            _ = try GatewayConfiguration(environment: ["FERRY_VAULT_KEY": bad], currentDirectory: "/srv")
            Issue.record("a short key was accepted")
        } catch {
            #expect("\(error)".contains("FERRY_VAULT_KEY"))
            #expect(!"\(error)".contains(bad))
        }
        #expect(throws: GatewayConfigurationError.self) {
            try GatewayConfiguration(environment: ["FERRY_VAULT_KEY": key, "FERRY_VAULT_KEY_FILE": "/etc/ferry/vault.key"], currentDirectory: "/srv")
        }
    }

    @Test func withoutConfiguredKeysAPrivateKeyFileIsMadeOnceAndReused() async throws {
        try await TemporaryDirectory.withNew { directory in
            let source = VaultKeySource.defaultFile(dataDirectory: directory)
            let first = try source.keyring(logger: Logger(label: "test"))
            let second = try source.keyring(logger: Logger(label: "test"))
            #expect(first.currentKeyID == second.currentKeyID)
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(directory)/vault.key")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            // Only the key file is left: the temporary file it was linked from is gone.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["vault.key"])
        }
    }

    @Test func aKeyFileListsKeysNewestFirstAndABadLineNamesTheFileNotTheKey() async throws {
        let new = VaultKey.generateText()
        let old = VaultKey.generateText()
        try await TemporaryDirectory.withFiles(["keys": "# newest first\n\(new)\n\n\(old)\n", "bad": "\(new)\nshort\n"]) { directory in
            let keyring = try VaultKeySource.file("\(directory)/keys").keyring(logger: Logger(label: "test"))
            #expect(keyring.keys.map(\.id) == [try VaultKey(base64: new).id, try VaultKey(base64: old).id])
            do {
                _ = try VaultKeySource.file("\(directory)/bad").keyring(logger: Logger(label: "test"))
                Issue.record("a bad key file was accepted")
            } catch {
                #expect("\(error)".contains("\(directory)/bad"))
                #expect(!"\(error)".contains(new))
            }
        }
    }
}
