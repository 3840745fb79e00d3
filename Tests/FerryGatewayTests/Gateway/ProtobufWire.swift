/// Protocol Buffers' wire format (https://protobuf.dev/programming-guides/encoding/), read without a
/// schema: enough to take apart an OTLP export in a test without generating code for it.
struct ProtobufWire {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes([UInt8])
        case fixed32(UInt32)
    }

    struct Field {
        let number: Int
        let value: Value

        var bytes: [UInt8] { if case .bytes(let bytes) = value { bytes } else { [] } }
        var string: String { String(decoding: bytes, as: UTF8.self) }
        var integer: UInt64 {
            switch value {
            case .varint(let value), .fixed64(let value): value
            case .fixed32(let value): UInt64(value)
            case .bytes: 0
            }
        }
        /// The field as an embedded message.
        var message: [Field] { (try? ProtobufWire.fields(of: bytes)) ?? [] }
    }

    struct Malformed: Error {}

    static func fields(of bytes: [UInt8]) throws -> [Field] {
        var fields: [Field] = []
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        func fixed(_ count: Int) throws -> UInt64 {
            guard index + count <= bytes.count else { throw Malformed() }
            var value: UInt64 = 0
            for offset in 0..<count { value |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
            index += count
            return value
        }
        while index < bytes.count {
            let key = try varint()
            let number = Int(key >> 3)
            switch key & 7 {
            case 0: fields.append(Field(number: number, value: .varint(try varint())))
            case 1: fields.append(Field(number: number, value: .fixed64(try fixed(8))))
            case 2:
                let length = Int(try varint())
                guard length >= 0, index + length <= bytes.count else { throw Malformed() }
                fields.append(Field(number: number, value: .bytes(Array(bytes[index..<index + length]))))
                index += length
            case 5: fields.append(Field(number: number, value: .fixed32(UInt32(try fixed(4)))))
            default: throw Malformed()
            }
        }
        return fields
    }
}
