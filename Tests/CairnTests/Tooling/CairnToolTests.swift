import Foundation
import Testing

@testable import Cairn

#if canImport(Glibc)
import Glibc
#endif

/// The `cairn` executable, run as a process against real stores: one the demo wrote, an empty
/// one, damaged ones, and one another process is writing. Reports are parsed from `--json`.
@Suite struct CairnToolTests {
    // MARK: A demo store

    @Test func inspectDescribesTheDemoStore() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        let run = try CairnTool.run(["inspect", store, "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let summary = try run.json()
        #expect(summary["formatVersion"] as? Int == 2)
        #expect(summary["schemaVersion"] as? String == "1.0.0")
        let entities = try #require(summary["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Author", "Book", "Chapter", "Tag"])
        #expect(entities.map { $0["rows"] as? Int } == [2, 3, 6, 3], "the demo deletes an author and two books")
        let book = try #require(entities.first { $0["name"] as? String == "Book" })
        let relationships = try #require(book["relationships"] as? [[String: Any]])
        let author = try #require(relationships.first { $0["name"] as? String == "author" })
        #expect(author["destination"] as? String == "Author" && author["inverse"] as? String == "books")
        #expect(author["edges"] as? Int == 3)
        let attributes = try #require(book["attributes"] as? [[String: Any]])
        #expect(attributes.map { $0["type"] as? String } == ["Swift.String", "Swift.Int"])
        let files = try #require(summary["files"] as? [String: Any])
        #expect((files["dataFileBytes"] as? Int ?? 0) > 0 && (files["pagesUsed"] as? Int ?? 0) > 2)
        let history = try #require(summary["history"] as? [String: Any])
        #expect(history["transactions"] as? Int == 2)
        #expect(summary["readers"] as? [Any] != nil)
        // The text report names the same.
        let text = try CairnTool.run(["inspect", store])
        #expect(text.status == 0 && text.output.contains("Book — 3 rows") && text.output.contains("author → Author"))
    }

    @Test func inspectShowsTheSizeOfFullTextIndexes() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Notes.store")
        do {
            let container = try ModelContainer(
                for: Schema([SearchNote.self]), configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
            let context = ModelContext(container)
            for number in 0..<200 {
                context.insert(SearchNote("n\(number)", title: "Note \(number)", body: "words of note \(number)"))
            }
            try context.save()
        }
        let run = try CairnTool.run(["inspect", store, "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let entities = try #require(try run.json()["entities"] as? [[String: Any]])
        let texts = try #require(entities.first { $0["name"] as? String == "SearchNote" }?["textIndexes"] as? [[String: Any]])
        #expect(texts.map { $0["attribute"] as? String } == ["body", "title"])
        #expect(texts.allSatisfy { ($0["blocks"] as? Int ?? 0) > 0 && ($0["bytes"] as? Int ?? 0) >= 4096 })
        let text = try CairnTool.run(["inspect", store])
        #expect(text.output.contains("full-text index (title): "), "\(text.output)")
    }

    @Test func inspectShowsTheSizeOfVectorIndexes() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Photos.store")
        do {
            let container = try ModelContainer(
                for: Schema([VectorPhoto.self]), configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
            let context = ModelContext(container)
            for number in 0..<150 {
                let embedding = (0..<8).map { Float(($0 + number) % 5) }
                let position: [Float]? = number % 3 == 0 ? [1, 2, 3] : nil
                context.insert(VectorPhoto("p\(number)", embedding: embedding, position: position))
            }
            try context.save()
        }
        let run = try CairnTool.run(["inspect", store, "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let entities = try #require(try run.json()["entities"] as? [[String: Any]])
        let vectors = try #require(
            entities.first { $0["name"] as? String == "VectorPhoto" }?["vectorIndexes"] as? [[String: Any]])
        #expect(vectors.map { $0["attribute"] as? String } == ["embedding", "position"])
        #expect(vectors.map { $0["vectors"] as? Int } == [150, 50])
        #expect(vectors.allSatisfy { ($0["bytes"] as? Int ?? 0) >= 4096 })
        let text = try CairnTool.run(["inspect", store])
        #expect(text.output.contains("vector index (embedding): 150 vectors"), "\(text.output)")
    }

    @Test func verifyFindsTheDemoStoreSound() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        let run = try CairnTool.run(["verify", store, "--json"])
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        let report = try run.json()
        #expect(report["clean"] as? Bool == true)
        #expect(report["rowsByEntity"] as? [String: Int] == ["Author": 2, "Book": 3, "Chapter": 6, "Tag": 3])
        #expect((report["problems"] as? [Any])?.isEmpty == true)
        #expect(try CairnTool.run(["verify", store]).output.contains("no problems"))
    }

    @Test func dumpStreamsRowsWithTheirRelationshipsAsJSONLinesAndCSV() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        let run = try CairnTool.run(["dump", store, "--entity", "Book"])
        #expect(run.status == 0, "\(run.errors)")
        let rows = try run.jsonLines()
        #expect(rows.map { $0["title"] as? String } == ["Pride and Prejudice", "Emma", "Leaves of Grass"])
        #expect(rows[0]["id"] as? String == "Book/1" && rows[0]["author"] as? String == "Author/1")
        #expect(rows[0]["chapters"] as? [String] == ["Chapter/1", "Chapter/2", "Chapter/3"], "in their stored order")
        #expect(rows[2]["year"] as? Int == 1855)

        let filtered = try CairnTool.run(["dump", store, "--entity", "Book", "--where", "year=1815"])
        #expect(try filtered.jsonLines().map { $0["title"] as? String } == ["Emma"])

        let csv = try CairnTool.run(["dump", store, "--entity", "Author", "--format", "csv"])
        #expect(csv.status == 0)
        #expect(
            csv.output.split(separator: "\n") == [
                "id,name,born,books", "Author/1,Jane Austen,1775,Book/1 Book/2", "Author/3,Walt Whitman,1819,Book/5",
            ])

        let unknown = try CairnTool.run(["dump", store, "--entity", "Publisher"])
        #expect(unknown.status != 0 && unknown.errors.contains("Author, Book, Chapter, Tag"), "\(unknown.errors)")
    }

    @Test func historyListsTheTransactionsAfterAToken() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        let all = try CairnTool.run(["history", store, "--json"]).jsonLines()
        #expect(all.count == 2)
        let first = try #require(all.first?["token"] as? Int)
        let inserted = try #require(all[0]["changes"] as? [[String: Any]])
        #expect(inserted.contains { $0["kind"] as? String == "insert" && $0["entity"] as? String == "Book" })
        let later = try CairnTool.run(["history", store, "--since", "\(first)", "--json"]).jsonLines()
        #expect(later.count == 1 && (later[0]["token"] as? Int ?? 0) > first)
        let deletes = try #require(later[0]["changes"] as? [[String: Any]])
        #expect(
            deletes.contains {
                $0["kind"] as? String == "delete" && ($0["ids"] as? [String])?.contains("Author/2") == true
            })
        // A token in the JSON an app keeps, of this store.
        let identifier = try CairnTool.run(["inspect", store, "--json"]).json()["storeIdentifier"] as! String
        let byJSON = try CairnTool.run(["history", store, "--since", "{\"\(identifier)\": \(first)}"])
        #expect(byJSON.status == 0 && byJSON.output.hasPrefix("Transaction \(later[0]["token"]!)"), "\(byJSON.output)")
        let otherStore = try CairnTool.run(["history", store, "--since", "{\"another\": 3}"])
        #expect(otherStore.status != 0 && otherStore.errors.contains("another"))
    }

    @Test func backupAndCompactKeepTheDemoStoresModels() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        let before = try CairnTool.run(["dump", store, "--entity", "Book"]).output
        let copy = directory.child("Copy.store")
        let backup = try CairnTool.run(["backup", store, copy, "--json"])
        #expect(backup.status == 0, "\(backup.errors)")
        let report = try backup.json()
        #expect(report["verified"] as? Bool == true && report["compacted"] as? Bool == false)
        #expect((report["bytes"] as? Int ?? 0) > 0)
        #expect(try CairnTool.run(["dump", copy, "--entity", "Book"]).output == before)

        let compact = try CairnTool.run(["compact", store, "--json"])
        #expect(compact.status == 0, "\(compact.errors)")
        let outcome = try compact.json()
        #expect((outcome["bytesAfter"] as? Int ?? .max) <= (outcome["bytesBefore"] as? Int ?? 0))
        #expect(try CairnTool.run(["dump", store, "--entity", "Book"]).output == before)
        #expect(try CairnTool.run(["verify", store]).status == 0)
        let history = try CairnTool.run(["history", store, "--json"]).jsonLines()
        #expect(history.count == 2 && history.last?["token"] as? Int == outcome["transaction"] as? Int)
    }

    // MARK: An empty store and no store

    @Test func everyCommandWorksOnAnEmptyStore() throws {
        let directory = TemporaryDirectory()
        _ = try tallyContainer(directory)
        let store = directory.child("Tally.store")
        let summary = try CairnTool.run(["inspect", store, "--json"]).json()
        let entities = try #require(summary["entities"] as? [[String: Any]])
        #expect(entities.map { $0["rows"] as? Int } == [0, 0])
        #expect(try CairnTool.run(["verify", store, "--json"]).json()["clean"] as? Bool == true)
        let dump = try CairnTool.run(["dump", store, "--entity", "Tally"])
        #expect(dump.status == 0 && dump.output.isEmpty)
        let history = try CairnTool.run(["history", store])
        #expect(history.status == 0 && history.output == "No transactions.\n")
        let backup = try CairnTool.run(["backup", store, directory.child("Copy.store"), "--json"])
        #expect(backup.status == 0)
        #expect(try backup.json()["verified"] as? Bool == true)
        let compact = try CairnTool.run(["compact", store, "--json"])
        #expect(compact.status == 0, "\(compact.errors)")
        #expect(try CairnTool.run(["verify", store]).status == 0)
    }

    @Test func aPathWithoutAStoreCannotBeOpened() throws {
        let directory = TemporaryDirectory()
        let missing = directory.child("Nothing.store")
        let verify = try CairnTool.run(["verify", missing])
        #expect(verify.status == 2 && verify.errors.contains("cannot open"), "\(verify.errors)")
        #expect(try CairnTool.run(["inspect", missing]).status == 1)
        #expect(try CairnTool.run(["dump", missing, "--entity", "Book"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: missing), "nothing is created")
    }

    // MARK: Encrypted stores

    /// The demo store, encrypted with a key written to `store.key` as hexadecimal digits.
    private func encryptedDemoStore(_ directory: TemporaryDirectory) throws -> (store: String, keyFile: String, key: [UInt8]) {
        let store = try demoStore(directory)
        let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 9 &+ 1) }
        try ModelContainer.encryptStore(at: URL(fileURLWithPath: store), with: .key(Data(key)))
        let keyFile = directory.child("store.key")
        try (key.map { String(format: "%02x", $0) }.joined() + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        return (store, keyFile, key)
    }

    @Test func anEncryptedStoreOpensWithItsKeyFileOrPassphraseOnly() throws {
        let directory = TemporaryDirectory()
        let (store, keyFile, key) = try encryptedDemoStore(directory)
        let verify = try CairnTool.run(["verify", store, "--key-file", keyFile, "--json"])
        #expect(verify.status == 0, "\(verify.output) \(verify.errors)")
        #expect(try verify.json()["rowsByEntity"] as? [String: Int] == ["Author": 2, "Book": 3, "Chapter": 6, "Tag": 3])
        let dump = try CairnTool.run(["dump", store, "--entity", "Book", "--key-file", keyFile])
        #expect(try dump.jsonLines().map { $0["title"] as? String } == ["Pride and Prejudice", "Emma", "Leaves of Grass"])

        let bare = try CairnTool.run(["inspect", store])
        #expect(bare.status == 1 && bare.errors.contains("encryptionKeyRequired"), "\(bare.errors)")
        let raw = directory.child("raw.key")
        try Data(key).write(to: URL(fileURLWithPath: raw))
        #expect(try CairnTool.run(["inspect", store, "--key-file", raw]).status == 0)
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: raw))
        #expect(try CairnTool.run(["inspect", store, "--key-file", raw]).errors.contains("wrongEncryptionKey"))

        // A key file is never followed through a link.
        let link = directory.child("link.key")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: keyFile)
        let linked = try CairnTool.run(["inspect", store, "--key-file", link])
        #expect(linked.status == 1 && linked.errors.contains("symbolic link"), "\(linked.errors)")

        // A passphrase comes from the environment.
        try ModelContainer.rotateDataKey(
            ofStoreAt: URL(fileURLWithPath: store), with: .key(Data(key)), newEncryption: .passphrase("tool passphrase"))
        let byPassphrase = try CairnTool.run(["verify", store], environment: ["CAIRN_PASSPHRASE": "tool passphrase"])
        #expect(byPassphrase.status == 0 && byPassphrase.output.contains("no problems"), "\(byPassphrase.errors)")
        let compact = try CairnTool.run(["compact", store, "--quiet"], environment: ["CAIRN_PASSPHRASE": "tool passphrase"])
        #expect(compact.status == 0, "\(compact.errors)")
        let backup = try CairnTool.run(
            ["backup", store, directory.child("Backup.store"), "--quiet"], environment: ["CAIRN_PASSPHRASE": "tool passphrase"])
        #expect(backup.status == 0, "\(backup.errors)")
    }

    @Test func verifyFindsAnEncryptedRecordThatDoesNotAuthenticate() throws {
        let directory = TemporaryDirectory()
        let (store, keyFile, key) = try encryptedDemoStore(directory)
        do {
            var configuration = StorageConfiguration(path: store)
            configuration.encryption = .key(key)
            configuration.sealedTables = StoreLayout.sealedTables
            let environment = try LMDBEnvironment.open(configuration)
            let books = try #require(try environment.openTable(StoreLayout.recordsTable(of: "Book"))).asStored
            try environment.write { txn in
                var sealed = try #require(try txn.get(EntryLayout.rowKey(2), in: books))
                sealed[20] ^= 0x10
                try txn.put(sealed, for: EntryLayout.rowKey(2), in: books)
            }
        }
        let verify = try CairnTool.run(["verify", store, "--key-file", keyFile, "--json"])
        #expect(verify.status == 1, "\(verify.errors)")
        let problems = try #require(try verify.json()["problems"] as? [[String: Any]])
        #expect(
            problems.contains {
                $0["kind"] as? String == "damagedRecord" && ($0["identifiers"] as? [String]) == ["Book/2"]
            }, "\(problems)")
    }

    // MARK: Damaged stores

    @Test func aDamagedRecordIsFoundByVerifyAndLeftOutOfTheDumpWithItsIdentifier() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        try flipAll(Array("Emma".utf8), in: store)
        let verify = try CairnTool.run(["verify", store, "--json"])
        #expect(verify.status == 1)
        let report = try verify.json()
        #expect(report["clean"] as? Bool == false)
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(
            problems.contains {
                $0["kind"] as? String == "damagedRecord" && ($0["identifiers"] as? [String]) == ["Book/2"]
            }, "\(problems)")
        let text = try CairnTool.run(["verify", store])
        #expect(text.status == 1 && text.output.contains("Book/2"))

        let dump = try CairnTool.run(["dump", store, "--entity", "Book"])
        #expect(dump.status == 1)
        #expect(try dump.jsonLines().map { $0["id"] as? String } == ["Book/1", "Book/5"], "the others are there")
        #expect(dump.errors.contains("Book/2 cannot be read"))
        // What does not need the damaged row still works.
        #expect(try CairnTool.run(["inspect", store]).status == 0)
        #expect(try CairnTool.run(["history", store]).status == 0)
        // A backup copies the store as it is: the damage is there, found by verify, not hidden.
        let copy = directory.child("Copy.store")
        #expect(try CairnTool.run(["backup", store, copy]).status == 0)
        #expect(try CairnTool.run(["verify", copy]).status == 1)
        #expect(try CairnTool.run(["dump", copy, "--entity", "Book"]).jsonLines().count == 2)
        // Compacting keeps the damaged record as it is too (its checksum still fails) and loses no other.
        #expect(try CairnTool.run(["compact", store]).status == 0)
        let after = try CairnTool.run(["verify", store, "--json"])
        #expect(after.status == 1)
        #expect(
            (try after.json()["problems"] as? [[String: Any]])?.contains {
                ($0["identifiers"] as? [String]) == ["Book/2"]
            } == true)
    }

    @Test func aDamagedFileIsRefusedWithoutACrash() throws {
        let directory = TemporaryDirectory()
        let store = try demoStore(directory)
        let data = store + "/data.mdb"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: data)))
        // Garbage over both meta pages: no commit can be opened.
        for offset in [16, 4096 + 16] {
            for index in 0..<64 { bytes[offset + index] = UInt8(truncatingIfNeeded: index &* 37) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: data))
        let verify = try CairnTool.run(["verify", store])
        #expect(verify.status == 2 && verify.signal == nil, "\(verify.errors)")
        #expect(verify.errors.contains("damaged"))
        for command in [["inspect", store], ["dump", store, "--entity", "Book"], ["history", store]] {
            let run = try CairnTool.run(command)
            #expect(run.status == 1 && run.signal == nil, "\(command): \(run.errors)")
        }
        let backup = try CairnTool.run(["backup", store, directory.child("Copy.store")])
        #expect(backup.status == 1 && !FileManager.default.fileExists(atPath: directory.child("Copy.store")))
        // A truncated file too.
        try Data(bytes.prefix(3000)).write(to: URL(fileURLWithPath: data))
        #expect(try CairnTool.run(["verify", store]).status == 2)
        #expect(try CairnTool.run(["compact", store]).status == 1)
    }

    // MARK: A store another process is writing

    @Test func everyCommandWorksWhileAnotherProcessWrites() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Tally.store")
        let writer = try HelperProcess(["ledger", store, "30"])
        defer { writer.kill() }
        var acknowledged = 0
        while acknowledged < 20, let line = writer.readLine() {
            if line.hasPrefix("ack") { acknowledged += 1 }
        }
        let summary = try CairnTool.run(["inspect", store, "--json"]).json()
        let tallies = try #require(
            (summary["entities"] as? [[String: Any]])?.first { $0["name"] as? String == "Tally" })
        #expect((tallies["rows"] as? Int ?? 0) >= 40)
        #expect(
            (summary["readers"] as? [[String: Any]])?.contains {
                $0["processIdentifier"] as? Int == Int(writer.process.processIdentifier)
            } == true, "the writer's reader slot is listed")

        #expect(try CairnTool.run(["verify", store, "--json"]).json()["clean"] as? Bool == true)

        // One snapshot: whole saves only, each of balanced pairs.
        let rows = try CairnTool.run(["dump", store, "--entity", "Tally"]).jsonLines()
        #expect(rows.count >= 40 && rows.count % 2 == 0)
        #expect(rows.reduce(0) { $0 + ($1["amount"] as? Int ?? 0) } == 0, "no torn save")

        let history = try CairnTool.run(["history", store, "--json"]).jsonLines()
        let tokens = history.compactMap { $0["token"] as? Int }
        #expect(tokens.count >= 20 && tokens == tokens.sorted())

        let copy = directory.child("Copy.store")
        let backup = try CairnTool.run(["backup", store, copy, "--compact", "--json"])
        #expect(backup.status == 0, "\(backup.errors)")
        let copied = try CairnTool.run(["dump", copy, "--entity", "Tally"]).jsonLines()
        #expect(copied.count >= rows.count && copied.count % 2 == 0)
        #expect(copied.reduce(0) { $0 + ($1["amount"] as? Int ?? 0) } == 0)
        #expect(try CairnTool.run(["verify", copy]).status == 0)

        // Compacting needs the store alone: refused, and the store is left as it was.
        let compact = try CairnTool.run(["compact", store])
        #expect(
            compact.status == 1 && compact.errors.contains("Another process has the store open"), "\(compact.errors)")
        writer.kill()
        _ = writer.waitForExit()
        #expect(try CairnTool.run(["verify", store]).status == 0)
    }

    // MARK: Compacting

    @Test func compactGivesFreePagesBackAndTheStoreGoesOn() throws {
        let directory = TemporaryDirectory()
        do {
            let context = ModelContext(try tallyContainer(directory))
            for index in 0..<3_000 {
                context.insert(Tally(label: "row \(index) " + String(repeating: "x", count: 200), amount: 1))
            }
            try context.save()
            try context.delete(model: Tally.self, where: #Predicate { $0.amount == 1 })
            context.insert(Tally(label: "kept", amount: 7))
            try context.save()
        }
        let store = directory.child("Tally.store")
        let before = try CairnTool.run(["history", store, "--json"]).jsonLines().compactMap { $0["token"] as? Int }
        let run = try CairnTool.run(["compact", store, "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let outcome = try run.json()
        let bytesBefore = try #require(outcome["bytesBefore"] as? Int)
        let bytesAfter = try #require(outcome["bytesAfter"] as? Int)
        #expect(bytesAfter * 4 < bytesBefore, "\(bytesBefore) → \(bytesAfter)")
        #expect(try CairnTool.run(["verify", store]).status == 0)
        // The app opens it, finds its models, saves, and its history goes on after the old tokens.
        let context = ModelContext(try tallyContainer(directory))
        #expect(try context.fetch(FetchDescriptor<Tally>()).map(\.label) == ["kept"])
        context.insert(Tally(label: "after", amount: 1))
        try context.save()
        let after = try CairnTool.run(["history", store, "--json"]).jsonLines().compactMap { $0["token"] as? Int }
        #expect(Array(after.prefix(before.count)) == before && after.count == before.count + 1)
        #expect(after.last! > before.last!)
    }

    // MARK: Help

    @Test(arguments: ["inspect", "verify", "dump", "backup", "compact", "history"])
    func eachCommandsHelpHasAnExample(command: String) throws {
        let run = try CairnTool.run([command, "--help"])
        #expect(run.status == 0 && run.output.contains("Example:") && run.output.contains("cairn \(command)"))
    }

    // MARK: Helpers

    /// A store written by `cairn demo`.
    private func demoStore(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.child("Demo.store")
        let run = try CairnTool.run(["demo", store])
        #expect(run.status == 0, "\(run.errors)")
        return store
    }

    /// Flips a bit in every copy of `needle` in the store's data file (pages of older commits
    /// may hold copies of a record too).
    private func flipAll(_ needle: [UInt8], in store: String) throws {
        let url = URL(fileURLWithPath: store + "/data.mdb")
        var bytes = [UInt8](try Data(contentsOf: url))
        let offsets = bytes.indices.dropLast(needle.count).filter {
            bytes[$0..<($0 + needle.count)].elementsEqual(needle)
        }
        #expect(!offsets.isEmpty)
        for offset in offsets { bytes[offset] ^= 0x01 }
        try Data(bytes).write(to: url)
    }
}

/// Runs the `cairn` executable, built next to the test bundle.
enum CairnTool {
    struct Run {
        var status: Int32
        /// The signal that ended it, if one did.
        var signal: Int32?
        var output: String
        var errors: String

        /// Standard output as one JSON object.
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        }

        /// Standard output as JSON Lines.
        func jsonLines() throws -> [[String: Any]] {
            try output.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
        }
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = HelperProcess.executableURL.deletingLastPathComponent().appendingPathComponent("cairn")
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Both pipes are drained at once, so a long dump never blocks on a full pipe.
        let collected = Collected()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            collected.set(errors: errors.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let signaled = process.terminationReason == .uncaughtSignal
        return Run(
            status: signaled ? -1 : process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
            output: String(decoding: out, as: UTF8.self), errors: String(decoding: collected.errors, as: UTF8.self))
    }

    private final class Collected: @unchecked Sendable {
        // Written once by the reading thread before `group.leave()`, read after `group.wait()`.
        private(set) var errors = Data()
        func set(errors: Data) { self.errors = errors }
    }
}
