import Cairn
import Foundation

// The versions of one schema that the schema-evolution property test migrates through, each as
// an app declares it (its own model classes in a VersionedSchema). From one to the next: add an
// attribute with a default (2), rename one (3), remove one (4), make an optional one required,
// filled by a custom stage (5), add a relationship and its entity (6), make an attribute unique,
// duplicates merged by a custom stage (7).

enum EvolvingV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var body: String?
        init(title: String, body: String?) {
            self.title = title
            self.body = body
        }
    }
}

enum EvolvingV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var body: String?
        var priority: Int = 0
        init(title: String, body: String?) {
            self.title = title
            self.body = body
        }
    }
}

enum EvolvingV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        @Attribute(originalName: "body") var text: String?
        var priority: Int = 0
        init(title: String, text: String?) {
            self.title = title
            self.text = text
        }
    }
}

enum EvolvingV4: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var text: String?
        init(title: String, text: String?) {
            self.title = title
            self.text = text
        }
    }
}

enum EvolvingV5: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(5, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var text: String
        init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }
}

enum EvolvingV6: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(6, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Tag.self] }

    @Model final class Note {
        var title: String
        var text: String
        var tag: Tag?
        init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }

    @Model final class Tag {
        var name: String
        @Relationship(inverse: \Note.tag) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

enum EvolvingV7: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(7, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Tag.self] }

    @Model final class Note {
        @Attribute(.unique) var title: String
        var text: String
        var tag: Tag?
        init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }

    @Model final class Tag {
        var name: String
        @Relationship(inverse: \Note.tag) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}
