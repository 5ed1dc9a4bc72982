import Foundation
import Testing

@testable import Cairn

/// The public history, used as a SwiftData app uses it (`fetchHistory`, tokens kept as JSON,
/// `deleteHistory`, tombstones).
@Suite struct PublicHistoryTests {
    private func all(_ context: ModelContext) throws -> [DefaultHistoryTransaction] {
        try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    }

    private func after(_ token: DefaultHistoryToken, _ context: ModelContext) throws -> [DefaultHistoryTransaction] {
        try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
    }

    @Test func savesFromTwoContextsAppearInOrderWithAuthorsAndChanges() throws {
        let container = try tripContainer(TemporaryDirectory())
        let app = ModelContext(container)
        app.author = "app"
        let trip = Trip(name: "Alps", destination: "Chamonix")
        app.insert(trip)
        try app.save()
        let before = Date()

        let widget = ModelContext(container)
        widget.author = "widget"
        let theirs = try #require(try widget.fetch(FetchDescriptor<Trip>()).first)
        theirs.nights = 3
        try widget.save()
        widget.delete(theirs)
        try widget.save()

        let transactions = try all(ModelContext(container))
        #expect(transactions.map(\.author) == ["app", "widget", "widget"])
        #expect(transactions.map(\.transactionIdentifier) == transactions.map(\.transactionIdentifier).sorted())
        #expect(transactions[0].token < transactions[1].token && transactions[1].token < transactions[2].token)
        #expect(transactions[1].timestamp >= before.addingTimeInterval(-1) && transactions[2].timestamp <= Date())
        #expect(transactions.allSatisfy { $0.storeIdentifier == container.storeIdentifier })
        #expect(transactions[0].processIdentifier == String(ProcessInfo.processInfo.processIdentifier))

        let id = trip.persistentModelID
        guard case .insert(let insert as DefaultHistoryInsert<Trip>) = try #require(transactions[0].changes.first)
        else {
            Issue.record("the first save inserted the trip: \(transactions[0].changes)")
            return
        }
        #expect(insert.changedPersistentIdentifier == id)
        #expect(insert.transactionIdentifier == transactions[0].transactionIdentifier)
        #expect(transactions[1].changes.count == 1)
        guard case .update(let update as DefaultHistoryUpdate<Trip>) = transactions[1].changes[0] else {
            Issue.record("the second save updated the trip: \(transactions[1].changes)")
            return
        }
        #expect(update.changedPersistentIdentifier == id)
        #expect(update.updatedAttributes.count == 1)
        #expect(update.updatedAttributes.first.map { $0 == \Trip.nights } == true)
        guard case .delete(let delete as DefaultHistoryDelete<Trip>) = transactions[2].changes[0] else {
            Issue.record("the third save deleted the trip: \(transactions[2].changes)")
            return
        }
        #expect(delete.changedPersistentIdentifier == id)
        #expect(delete.tombstone[\.name] as? String == "Alps")
        #expect(delete.tombstone[\.startDate] as? Date == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(delete.tombstone[\.destination] == nil, "not preserved")
        #expect(Array(delete.tombstone).count == 2)
    }

    @Test func predicatesOnAuthorAndTimestampSortAndLimit() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        for (index, author) in ["a", "b", "a", "c", "a"].enumerated() {
            context.author = author
            context.insert(Trip(name: "t\(index)", destination: "d"))
            try context.save()
        }
        let byA = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "a" }))
        #expect(byA.count == 3)
        var newestFirst = HistoryDescriptor<DefaultHistoryTransaction>(
            sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newestFirst.fetchLimit = 2
        let newest = try context.fetchHistory(newestFirst)
        #expect(newest.map(\.author) == ["a", "c"])
        let cut = byA[1].timestamp
        let later = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.timestamp > cut }))
        #expect(later.map(\.author) == ["c", "a"])
        let token = byA[0].token
        let bounded = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.token > token && $0.author != "b" }))
        #expect(bounded.map(\.author) == ["a", "c", "a"])
    }

    /// The predicate apps write to read only the transactions that touched some models:
    /// over each transaction's changes, by entity name.
    @Test func aPredicateOverTheChangesPicksTransactionsByEntity() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        context.author = "trips"
        context.insert(Trip(name: "Lisbon", destination: "PT"))
        try context.save()
        context.author = "carriers"
        context.insert(Carrier(plate: "C-1"))
        try context.save()
        context.author = "stops"
        let trip = try context.fetch(FetchDescriptor<Trip>()).first!
        trip.stops.append(Stop(place: "Porto"))
        try context.save()
        let names: Set<String> = ["Trip"]
        let touchingTrips = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.changes.contains { names.contains($0.changedPersistentIdentifier.entityName) } },
                sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)]))
        #expect(touchingTrips.map(\.author) == ["stops", "trips"], "the stop's save changed the trip's list too")
        let stopsOnly: Set<String> = ["Stop"]
        let touchingStops = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.changes.contains { stopsOnly.contains($0.changedPersistentIdentifier.entityName) } }))
        #expect(touchingStops.map(\.author) == ["stops"])
    }

    @Test func aTokenKeptAsJSONSurvivesReopening() throws {
        let directory = TemporaryDirectory()
        var data = Data()
        do {
            let container = try tripContainer(directory)
            let context = ModelContext(container)
            context.insert(Trip(name: "one", destination: "x"))
            try context.save()
            data = try JSONEncoder().encode(try #require(try all(context).last).token)
            context.insert(Trip(name: "two", destination: "y"))
            try context.save()
        }
        let container = try tripContainer(directory)
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
        let context = ModelContext(container)
        let newer = try after(token, context)
        #expect(newer.count == 1)
        guard case .insert(let insert as DefaultHistoryInsert<Trip>) = try #require(newer.first?.changes.first) else {
            Issue.record("the save after the token inserted a trip")
            return
        }
        #expect((context.model(for: insert.changedPersistentIdentifier) as? Trip)?.name == "two")
        #expect(token.tokenValue?[container.storeIdentifier] == Int64(token.id))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DefaultHistoryToken.self, from: Data("{}".utf8))
        }
    }

    @Test func deletedHistoryExpiresOlderTokens() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        for index in 0..<4 {
            context.insert(Trip(name: "t\(index)", destination: "d"))
            try context.save()
        }
        let transactions = try all(context)
        let (first, second) = (transactions[0].token, transactions[1].token)
        try context.deleteHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= second }))
        #expect(try all(context).map(\.token) == transactions.dropFirst(2).map(\.token))
        #expect(try after(second, context).count == 2, "nothing after the token was deleted")
        #expect { try after(first, context) } throws: { error in
            guard let error = error as? SwiftDataError, error == .historyTokenExpired else { return false }
            return error.message.contains("Discard the token")
        }
        do {
            _ = try after(first, context)
        } catch SwiftDataError.historyTokenExpired {
            // SwiftData's spelling catches it
        }
        // The models are untouched, and the next save is in the history.
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 4)
        context.insert(Trip(name: "t4", destination: "d"))
        try context.save()
        #expect(try after(second, context).count == 3)
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try all(context).isEmpty)
    }

    @Test func aTokenOfAnotherStoreIsRefused() throws {
        let directory = TemporaryDirectory()
        let one = ModelContext(try tripContainer(directory, name: "One.store"))
        let two = ModelContext(try tripContainer(directory, name: "Two.store"))
        one.insert(Trip(name: "x", destination: "y"))
        try one.save()
        let token = try #require(try all(one).first).token
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) { try after(token, two) }
    }

    @Test func relationshipChangesNameTheRelationshipOnBothSides() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let trip = Trip(name: "Coast", destination: "Lisbon")
        let stop = Stop(place: "Porto")
        context.insert(trip)
        context.insert(stop)
        try context.save()
        let saved = try #require(try all(context).last).token
        trip.stops.append(stop)
        try context.save()
        let changes = try #require(try after(saved, context).first).changes
        var updated: [String: [AnyKeyPath]] = [:]
        for change in changes {
            switch change {
            case .update(let update as DefaultHistoryUpdate<Trip>):
                updated["Trip"] = update.updatedAttributes.map { $0 }
            case .update(let update as DefaultHistoryUpdate<Stop>):
                updated["Stop"] = update.updatedAttributes.map { $0 }
            default: Issue.record("unexpected \(change)")
            }
        }
        #expect(updated["Trip"] == [\Trip.stops])
        #expect(updated["Stop"] == [\Stop.trip])
    }

    @Test func cascadedDeletesAndUpsertsAreInTheHistory() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        let trip = Trip(name: "Loop", destination: "Oslo")
        trip.stops = [Stop(place: "Bergen"), Stop(place: "Tromsø")]
        context.insert(trip)
        try context.save()
        var token = try #require(try all(context).last).token
        #expect(try all(context)[0].changes.count == 3)
        // An insert with the same unique name takes the stored trip over: an update of everything.
        context.insert(Trip(name: "Loop", destination: "Bodø", nights: 4))
        try context.save()
        let upsert = try #require(try after(token, context).first)
        guard case .update(let update as DefaultHistoryUpdate<Trip>) = try #require(upsert.changes.first) else {
            Issue.record("a takeover is an update: \(upsert.changes)")
            return
        }
        #expect(update.changedPersistentIdentifier == trip.persistentModelID)
        #expect(update.updatedAttributes.contains { $0 == \Trip.destination })
        token = upsert.token
        let kept = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        context.delete(kept)
        try context.save()
        let deletion = try #require(try after(token, context).first)
        let deleted = deletion.changes.compactMap { change -> String? in
            if case .delete(let delete) = change { return delete.changedPersistentIdentifier.entityName }
            return nil
        }
        #expect(deleted.sorted() == ["Stop", "Stop", "Trip"])
    }

    @Test func changesOfASubclassAreOfItsOwnClass() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        context.insert(Carrier(plate: "A-1"))
        context.insert(Barge(plate: "B-2", seats: 8))
        try context.save()
        let changes = try #require(try all(context).first).changes
        #expect(changes.count == 2)
        #expect(changes.contains { if case .insert(_ as DefaultHistoryInsert<Barge>) = $0 { true } else { false } })
        #expect(changes.contains { if case .insert(_ as DefaultHistoryInsert<Carrier>) = $0 { true } else { false } })
        let van = try #require(try context.fetch(FetchDescriptor<Barge>()).first)
        van.seats = 9
        van.plate = "B-3"
        try context.save()
        guard
            case .update(let update as DefaultHistoryUpdate<Barge>) = try #require(try all(context).last?.changes.first)
        else {
            Issue.record("the van's update is of a Barge")
            return
        }
        #expect(update.updatedAttributes.count == 2)
        #expect(
            update.updatedAttributes.contains { $0 == \Barge.plate }
                && update.updatedAttributes.contains { $0 == \Barge.seats })
    }

    @Test func anotherProcessesSavesAppearInOrder() throws {
        let directory = TemporaryDirectory()
        let container = try tallyContainer(directory)
        let context = ModelContext(container)
        context.author = "here"
        let tally = Tally(label: "shared", amount: 1)
        context.insert(tally)
        try context.save()
        let store = directory.child("Tally.store")
        #expect(try HelperProcess.run(["tally-update", store, "shared", "5", "there"]).output.contains("saved"))
        tally.amount = 7
        try context.save()
        let transactions = try all(context)
        #expect(transactions.map(\.author) == ["here", "there", "here"])
        let mine = String(ProcessInfo.processInfo.processIdentifier)
        #expect(transactions.map { $0.processIdentifier == mine } == [true, false, true])
        guard case .update(let update as DefaultHistoryUpdate<Tally>) = try #require(transactions[1].changes.first)
        else {
            Issue.record("the other process updated the tally: \(transactions[1].changes)")
            return
        }
        #expect(update.changedPersistentIdentifier == tally.persistentModelID)
        #expect(update.updatedAttributes.map { $0 as AnyKeyPath } == [\Tally.amount])
    }

    /// A damaged entry is an error that names its transaction and the way out, never other
    /// changes; deleting it (with the history up to it) lets the history be read again.
    @Test func aDamagedEntryIsReportedAndCanBeDeleted() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        for index in 0..<3 {
            context.insert(Trip(name: "t\(index)", destination: "d"))
            try context.save()
        }
        let transactions = try all(context)
        let damaged = transactions[1]
        let table = try #require(container.store.history)
        let key = EntryLayout.historyKey(commit: UInt64(damaged.transactionIdentifier))
        try container.store.environment.write { txn in
            var value = try #require(try txn.get(key, in: table))
            value[value.count / 2] ^= 0x10
            try txn.put(value, for: key, in: table)
        }
        #expect { try all(context) } throws: { error in
            guard let error = error as? StorageError, error.code == .damagedRecord else { return false }
            return error.message.contains("\(damaged.transactionIdentifier)") && error.message.contains("deleteHistory")
        }
        // The models are untouched; a fetch of the transactions after it still works.
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
        let token = damaged.token
        #expect(try after(token, context).map(\.transactionIdentifier) == [transactions[2].transactionIdentifier])
        try context.deleteHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
        #expect(try all(context).map(\.transactionIdentifier) == [transactions[2].transactionIdentifier])
    }

    @Test func aSaveThatChangesNothingIsNotATransaction() throws {
        let container = try tripContainer(TemporaryDirectory())
        let context = ModelContext(container)
        try context.save()
        #expect(try all(context).isEmpty)
    }
}
