import Synchronization

/// An append-only list shared between a server's connection tasks and the test reading it.
final class RecordList<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    var all: [Element] {
        elements.withLock { $0 }
    }
}
