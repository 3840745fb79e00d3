@testable import FerryModel
import Foundation
import Testing
import URLLoading

@Suite("Destination policy (SSRF guard)")
struct DestinationPolicyTests {
    private func v4(_ text: String) -> ConnectionAddress {
        ConnectionAddress(family: .ipv4, bytes: text.split(separator: ".").compactMap { UInt8($0) }, port: 80)
    }

    private func v6(_ text: String) -> ConnectionAddress {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = inet_pton(AF_INET6, text, &bytes)
        return ConnectionAddress(family: .ipv6, bytes: bytes, port: 443)
    }

    @Test("loopback, private, link-local, metadata, multicast and reserved IPv4 addresses are refused")
    func ipv4Classes() {
        let expectations: [(String, DestinationPolicy.AddressClass)] = [
            ("127.0.0.1", .loopback), ("127.255.0.9", .loopback),
            ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("192.168.1.1", .privateNetwork), ("169.254.169.254", .linkLocal), ("100.100.100.200", .sharedAddressSpace),
            ("0.0.0.0", .unspecified), ("224.0.0.1", .multicast), ("255.255.255.255", .reserved),
            ("192.0.2.10", .reserved), ("198.18.0.1", .reserved),
            ("93.184.216.34", .publicUnicast), ("172.32.0.1", .publicUnicast), ("8.8.8.8", .publicUnicast),
        ]
        for (text, expected) in expectations {
            #expect(DestinationPolicy.classify(v4(text)) == expected, "\(text)")
        }
    }

    @Test("IPv6 loopback, unique local, link-local, multicast and IPv4-carrying forms are judged correctly")
    func ipv6Classes() {
        let expectations: [(String, DestinationPolicy.AddressClass)] = [
            ("::1", .loopback), ("::", .unspecified), ("fd00:ec2::254", .privateNetwork), ("fc00::1", .privateNetwork),
            ("fe80::1", .linkLocal), ("ff02::1", .multicast), ("::ffff:127.0.0.1", .loopback),
            ("::ffff:169.254.169.254", .linkLocal), ("64:ff9b::a00:1", .privateNetwork), ("2002:c0a8:101::1", .privateNetwork),
            ("2001:db8::1", .reserved), ("2606:4700::6810:85e5", .publicUnicast), ("::ffff:8.8.8.8", .publicUnicast),
        ]
        for (text, expected) in expectations {
            #expect(DestinationPolicy.classify(v6(text)) == expected, "\(text)")
        }
    }

    @Test("the policy refuses all but public unicast, and is absent when private networks are allowed")
    func policy() throws {
        let policy = try #require(DestinationPolicy.connectionPolicy(allowPrivateNetworks: false))
        #expect(!policy.allows(v4("127.0.0.1")))
        #expect(!policy.allows(v6("::ffff:10.0.0.1")))
        #expect(policy.allows(v4("93.184.216.34")))
        #expect(DestinationPolicy.connectionPolicy(allowPrivateNetworks: true) == nil)
    }

    @Test("a session with the gateway's policy cannot reach a loopback server; the job fails with destination_forbidden")
    func endToEnd() async throws {
        // A listener that would answer if the policy let the connection through.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = listen(listener, 4)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))

        var configuration = SessionConfiguration.default
        configuration.connectionPolicy = DestinationPolicy.connectionPolicy(allowPrivateNetworks: false)
        let session = try Session(configuration: configuration)
        for host in ["127.0.0.1", "localhost"] {
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(from: URL(string: "http://\(host):\(port)/")!)
            }
            #expect(error?.code == .destinationForbidden, "\(host)")
        }
    }
}

@Suite("Outbound URL policy")
struct OutboundURLPolicyTests {
    @Test("only http, https, ftp and ftps, with a host, a TCP port and no credentials; file: only when enabled")
    func schemes() {
        let policy = OutboundURLPolicy()
        #expect(policy.check(URL(string: "https://example.com/a")!) == nil)
        #expect(policy.check(URL(string: "ftp://example.com/a")!) == nil)
        #expect(policy.check(URL(string: "file:///etc/passwd")!) == .schemeNotAllowed("file"))
        #expect(policy.check(URL(string: "gopher://example.com/")!) == .schemeNotAllowed("gopher"))
        #expect(policy.check(URL(string: "/relative")!) == .notAbsolute)
        #expect(policy.check(URL(string: "http://user:secret@example.com/")!) == .credentialsInURL)
        #expect(policy.check(URL(string: "http://example.com:65535/")!) == nil)
        #expect(policy.check(URL(string: "http://example.com:/")!) == nil, "an empty port is the scheme's (RFC 3986 §3.2.3)")
        #expect(policy.check(URL(string: "http://[::1]:8080/")!) == nil)
        #expect(policy.check(URL(string: "http://example.com:65536/")!) == .portOutOfRange("65536"))
        #expect(policy.check(URL(string: "http://example.com:0/")!) == .portOutOfRange("0"))
        #expect(policy.check(URL(string: "http://[::1]:99999/")!) == .portOutOfRange("99999"))
        #expect(
            policy.check(URL(string: "ftp://example.com:99999999999999999999/a")!) == .portOutOfRange("99999999999999999999"),
            "too large for an Int, where URL.port is nil")
        #expect(OutboundURLPolicy(allowsFileURLs: true).check(URL(string: "file:///tmp/x")!) == nil)
    }
}
