/// The custom protocols every session of the process consults after its own (PR-04).
public enum ProtocolRegistry {
    private static let registered = Locked<[any TransferProtocol.Type]>([])

    /// Adds `type` for every session; registering it again makes it the most recent. The most recently
    /// registered type is asked first.
    public static func register(_ type: any TransferProtocol.Type) {
        registered.withLock { types in
            types.removeAll { ObjectIdentifier($0) == ObjectIdentifier(type) }
            types.append(type)
        }
    }

    public static func unregister(_ type: any TransferProtocol.Type) {
        registered.withLock { types in types.removeAll { ObjectIdentifier($0) == ObjectIdentifier(type) } }
    }

    /// The registered types in the order they are asked: the most recently registered first.
    public static var registeredTypes: [any TransferProtocol.Type] {
        registered.withLock { $0.reversed() }
    }

    /// The type that loads `request`: of the session's own types (in their order), then of the
    /// registered ones, the first whose `canInit(with:)` answers true; nil for the engine's own schemes.
    static func loader(for request: TransferRequest, sessionTypes: [any TransferProtocol.Type]) -> (any TransferProtocol.Type)? {
        if let own = sessionTypes.first(where: { $0.canInit(with: request) }) { return own }
        return registeredTypes.first { $0.canInit(with: request) }
    }
}
