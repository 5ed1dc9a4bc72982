import Cairn
import Foundation
import Testing

// Written as SwiftData code is: `@Attribute(.transformable(by:))` with a `ValueTransformer` class or
// a registered name, for a value that is not Codable.

/// A colour as a plain class: not Codable, so it can only be stored through a transformer.
final class SwatchColor: Equatable {
    let red: Double, green: Double, blue: Double
    init(red: Double, green: Double, blue: Double) { (self.red, self.green, self.blue) = (red, green, blue) }
    static func == (lhs: SwatchColor, rhs: SwatchColor) -> Bool {
        (lhs.red, lhs.green, lhs.blue) == (rhs.red, rhs.green, rhs.blue)
    }
}

final class SwatchColorTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let color = value as? SwatchColor else { return nil }
        return try? JSONEncoder().encode([color.red, color.green, color.blue])
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, let parts = try? JSONDecoder().decode([Double].self, from: data),
            parts.count == 3
        else { return nil }
        return SwatchColor(red: parts[0], green: parts[1], blue: parts[2])
    }
}

/// Stores a string reversed, counting its calls: a `Codable` type stored through its transformer,
/// not its own codec.
final class ReversingTransformer: ValueTransformer {
    nonisolated(unsafe) static var calls = (forward: 0, reverse: 0)
    override func transformedValue(_ value: Any?) -> Any? {
        Self.calls.forward += 1
        return (value as? String).map { Data(String($0.reversed()).utf8) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.calls.reverse += 1
        return (value as? Data).map { String(String(decoding: $0, as: UTF8.self).reversed()) }
    }
}

/// Returns no `Data`: a value it cannot store.
final class BrokenTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? { 42 }
}

@Model final class Swatch {
    var name: String
    @Attribute(.transformable(by: SwatchColorTransformer.self)) var color: SwatchColor
    @Attribute(.transformable(by: "SwatchColorTransformer")) var accent: SwatchColor?
    @Attribute(.transformable(by: NSSecureUnarchiveFromDataTransformer.self)) var labels: NSArray
    @Attribute(.transformable(by: ReversingTransformer.self)) var code: String = ""
    init(name: String, color: SwatchColor, labels: [String]) {
        self.name = name
        self.color = color
        self.labels = labels.map { NSString(string: $0) } as NSArray
    }
}

/// The same entity without the transformer on `code`.
enum RawSwatch {
    @Model final class Swatch {
        var name: String = ""
        var code: String = ""
        init() {}
    }
}

@Model final class BrokenSwatch {
    @Attribute(.transformable(by: BrokenTransformer.self)) var color: SwatchColor
    init(color: SwatchColor) { self.color = color }
}

@Model final class UnregisteredSwatch {
    @Attribute(.transformable(by: "NoSuchTransformer")) var color: SwatchColor?
    init() {}
}

@Suite(.serialized) struct TransformableAttributeTests {
    let directory = TemporaryDirectory()

    init() {
        ValueTransformer.setValueTransformer(
            SwatchColorTransformer(), forName: NSValueTransformerName("SwatchColorTransformer"))
    }

    private func configuration() -> ModelConfiguration {
        ModelConfiguration(url: URL(fileURLWithPath: directory.child("Swatch.store")))
    }

    @Test func valuesThatAreNotCodableAreStoredThroughTheirTransformer() throws {
        let context = ModelContext(try ModelContainer(for: Swatch.self, configurations: configuration()))
        let swatch = Swatch(name: "Sea", color: SwatchColor(red: 0, green: 0.4, blue: 0.8), labels: ["calm", "deep"])
        swatch.code = "S-1"
        let plain = Swatch(name: "Plain", color: SwatchColor(red: 1, green: 1, blue: 1), labels: [])
        context.insert(swatch)
        context.insert(plain)
        try context.save()
        swatch.accent = SwatchColor(red: 1, green: 0.5, blue: 0)
        try context.save()

        let reopened = ModelContext(try ModelContainer(for: Swatch.self, configurations: configuration()))
        let stored = try reopened.fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map(\.name) == ["Plain", "Sea"])
        let sea = try #require(stored.last)
        #expect(sea.color == SwatchColor(red: 0, green: 0.4, blue: 0.8))
        #expect(sea.accent == SwatchColor(red: 1, green: 0.5, blue: 0), "by a registered name")
        #expect(stored.first?.accent == nil, "nil stays nil")
        #expect((sea.labels as? [String]) == ["calm", "deep"], "archived securely, as Core Data does")
        #expect(sea.code == "S-1")
    }

    @Test func aCodableValueGoesThroughItsTransformerToo() throws {
        let context = ModelContext(try ModelContainer(for: Swatch.self, configurations: configuration()))
        let swatch = Swatch(name: "Sand", color: SwatchColor(red: 0.9, green: 0.8, blue: 0.6), labels: [])
        swatch.code = "abc"
        context.insert(swatch)
        ReversingTransformer.calls = (0, 0)
        try context.save()
        #expect(ReversingTransformer.calls.forward == 1, "written through the transformer, not as a String")

        let reopened = ModelContext(try ModelContainer(for: Swatch.self, configurations: configuration()))
        #expect(try reopened.fetch(FetchDescriptor<Swatch>()).map(\.code) == ["abc"])
        #expect(ReversingTransformer.calls.reverse == 1, "read back through it")

        // The transformer's bytes are no String: declaring the attribute without it is refused.
        let error = #expect(throws: SchemaError.self) {
            _ = try ModelContainer(for: RawSwatch.Swatch.self, configurations: configuration())
        }
        #expect(error?.message.contains("is stored as transformable Swift.String but declared as Swift.String") == true)
    }

    @Test func aValueTheTransformerCannotStoreFailsTheSaveAndKeepsTheChanges() throws {
        let context = ModelContext(try ModelContainer(for: BrokenSwatch.self, configurations: configuration()))
        context.insert(BrokenSwatch(color: SwatchColor(red: 0, green: 0, blue: 0)))
        let error = #expect(throws: (any Error).self) { try context.save() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("BrokenTransformer turned BrokenSwatch.color into Int"))
        #expect(context.hasChanges, "a failed save leaves the changes in the context")
    }

    @Test func aNameNothingIsRegisteredUnderIsATypedError() throws {
        let error = #expect(throws: SchemaError.self) {
            _ = try makeContainer(inMemory: UnregisteredSwatch.self)
        }
        #expect(error?.message.contains("no ValueTransformer is registered under that name") == true)
    }
}
