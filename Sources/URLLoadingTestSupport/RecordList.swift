import NIOConcurrencyHelpers

/// An append-only list shared between a server's connection tasks and the test reading it.
final class RecordList<Element: Sendable>: Sendable {
    private let elements = NIOLockedValueBox<[Element]>([])

    func append(_ element: Element) {
        elements.withLockedValue { $0.append(element) }
    }

    var all: [Element] {
        elements.withLockedValue { $0 }
    }
}
