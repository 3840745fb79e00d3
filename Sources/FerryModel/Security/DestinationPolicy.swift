import URLLoading

/// Where jobs may connect: the gateway's SSRF guard (design: "Outbound requests ... are an attack
/// surface").
///
/// The engine asks this for every resolved address right before connecting (see `ConnectionPolicy`),
/// so DNS rebinding, redirects to internal hosts and FTP PASV replies pointing inside are all caught.
/// By default only public unicast addresses pass; `FERRY_ALLOW_PRIVATE_NETWORKS=true` lifts the check.
public enum DestinationPolicy {
    /// What kind of address a connection would go to.
    public enum AddressClass: String, Sendable, Equatable {
        case publicUnicast = "public"
        case loopback
        case privateNetwork = "private"
        case sharedAddressSpace = "shared address space (carrier-grade NAT, some cloud metadata)"
        case linkLocal = "link-local (cloud metadata lives here)"
        case multicast
        case unspecified
        case reserved
    }

    /// The policy for a gateway; nil (no restriction) when private networks are allowed.
    public static func connectionPolicy(allowPrivateNetworks: Bool) -> ConnectionPolicy? {
        if allowPrivateNetworks { return nil }
        return ConnectionPolicy(name: "only public addresses; set FERRY_ALLOW_PRIVATE_NETWORKS=true to allow others") {
            classify($0) == .publicUnicast
        }
    }

    public static func classify(_ address: ConnectionAddress) -> AddressClass {
        switch address.family {
        case .ipv4: classifyIPv4(address.bytes)
        case .ipv6: classifyIPv6(address.bytes)
        }
    }

    package static func classifyIPv4(_ b: [UInt8]) -> AddressClass {
        guard b.count == 4 else { return .reserved }
        switch (b[0], b[1]) {
        case (0, _): return .unspecified                                  // 0.0.0.0/8 ("this network")
        case (127, _): return .loopback                                   // 127.0.0.0/8
        case (10, _), (172, 16...31), (192, 168): return .privateNetwork  // RFC 1918
        case (100, 64...127): return .sharedAddressSpace                  // 100.64.0.0/10 (RFC 6598)
        case (169, 254): return .linkLocal                                // 169.254.0.0/16, incl. 169.254.169.254
        case (224...239, _): return .multicast                            // 224.0.0.0/4
        case (240...255, _): return .reserved                             // 240.0.0.0/4 and broadcast
        case (192, 0) where b[2] == 0 || b[2] == 2: return .reserved      // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return .reserved                             // benchmarking
        case (198, 51) where b[2] == 100: return .reserved                // TEST-NET-2
        case (203, 0) where b[2] == 113: return .reserved                 // TEST-NET-3
        default: return .publicUnicast
        }
    }

    package static func classifyIPv6(_ b: [UInt8]) -> AddressClass {
        guard b.count == 16 else { return .reserved }
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }                                   // ::
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }                 // ::1
        // Addresses that carry an IPv4 address: judge the IPv4 address.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {               // ::ffff:a.b.c.d
            return classifyIPv4(Array(b[12..<16]))
        }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return classifyIPv4(Array(b[12..<16])) }        // ::a.b.c.d (deprecated)
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b { return classifyIPv4(Array(b[12..<16])) } // 64:ff9b::/96 NAT64
        if b[0] == 0x20, b[1] == 0x02 { return classifyIPv4(Array(b[2..<6])) }                 // 2002::/16 6to4
        if b[0] & 0xfe == 0xfc { return .privateNetwork }                                       // fc00::/7 unique local, incl. fd00:ec2::254
        if b[0] == 0xfe, b[1] & 0xc0 == 0x80 { return .linkLocal }                              // fe80::/10
        if b[0] == 0xfe, b[1] & 0xc0 == 0xc0 { return .privateNetwork }                         // fec0::/10 site-local (deprecated)
        if b[0] == 0xff { return .multicast }                                                   // ff00::/8
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0d, b[3] == 0xb8 { return .reserved }          // 2001:db8::/32 documentation
        if b[0] == 0x01, b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }                  // 100::/64 discard
        return .publicUnicast
    }
}
