import Cairn
import Foundation
import PropertyBased
import Testing

// The store's answer to a fetch equals evaluating the same `Predicate` in memory over every model:
// random data, random predicates built from every form `#Predicate` offers on this platform, on
// indexed and unindexed attributes, with unsaved changes in the context, and with sorts, limits
// and offsets that take the index-order path.

// MARK: - The models under test

enum PredMood: String, Codable, Sendable, CaseIterable { case calm, busy, away }

@Model final class PredTeam {
    #Unique<PredTeam>([\.name])

    var name: String
    @Relationship(deleteRule: .nullify, inverse: \PredMember.team) var members: [PredMember] = []

    init(name: String) { self.name = name }
}

/// `name`/`alias` and `score`/`points` share their values' distribution; only the first of each
/// pair is indexed, so every form is tried with and without an index. The compound indexes serve
/// equalities on both attributes, or an equality and then a range.
@Model final class PredMember {
    #Unique<PredMember>([\.code])
    #Index<PredMember>([\.name], [\.score], [\.rating], [\.born], [\.nickname], [\.score, \.name], [\.born, \.rating])

    var code: Int
    var name: String
    var alias: String
    var nickname: String?
    var score: Int
    var points: Int
    var rating: Double
    var born: Date
    var active: Bool
    var mood: PredMood
    var team: PredTeam?

    init(code: Int) {
        self.code = code
        name = ""
        alias = ""
        score = 0
        points = 0
        rating = 0
        born = Date(timeIntervalSinceReferenceDate: 0)
        active = false
        mood = .calm
    }
}

// MARK: - Values

/// Small domains, so that constants hit stored values, ties are common, and canonically
/// equivalent spellings ("Bront\u{E9}", "Bronte\u{301}") meet. No singleton decompositions
/// (U+212A): Swift's own `<` disagrees with its `==` on those (Docs/Design.md).
enum PredValues {
    static let strings = [
        "", "a", "ab", "b", "B", "Bront\u{E9}", "Bronte\u{301}", "Bronte", "e\u{301}", "\u{E9}", "z", "\u{AC00}",
        "\u{1100}\u{1161}", "a\u{0}b",
    ]
    static let ints = Array(-3...3)
    static let doubles = [-1.5, -0.0, 0.0, 0.5, 2.0, 1e300]
    static let dates = (-2...2).map { Date(timeIntervalSinceReferenceDate: Double($0) * 86_400) }
    static let teams = ["red", "blue", "Bront\u{E9}"]

    static func pick<T>(_ values: [T], _ random: inout SeededGenerator) -> T { values.randomElement(using: &random)! }

    static func randomize(_ member: PredMember, _ random: inout SeededGenerator) {
        member.name = pick(strings, &random)
        member.alias = pick(strings, &random)
        member.nickname = Bool.random(using: &random) ? nil : pick(strings, &random)
        member.score = pick(ints, &random)
        member.points = pick(ints, &random)
        member.rating = pick(doubles, &random)
        member.born = pick(dates, &random)
        member.active = Bool.random(using: &random)
        member.mood = pick(PredMood.allCases, &random)
    }
}

// MARK: - Random predicates

enum PredOp: CaseIterable, CustomStringConvertible {
    case less, lessOrEqual, greater, greaterOrEqual

    var foundation: PredicateExpressions.ComparisonOperator {
        switch self {
        case .less: .lessThan
        case .lessOrEqual: .lessThanOrEqual
        case .greater: .greaterThan
        case .greaterOrEqual: .greaterThanOrEqual
        }
    }

    var description: String {
        switch self {
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }
}

/// A predicate over `PredMember`, as a tree, so it can be printed and built.
indirect enum PredForm: CustomStringConvertible {
    case intCompare(indexed: Bool, PredOp, Int, flipped: Bool)
    case intEqual(indexed: Bool, Int, negated: Bool)
    case intInList(indexed: Bool, [Int])
    case stringCompare(indexed: Bool, PredOp, String)
    case stringEqual(indexed: Bool, String, negated: Bool)
    case stringInList(indexed: Bool, [String])
    case stringContains(indexed: Bool, String)
    case stringStarts(indexed: Bool, String)
    case ratingCompare(PredOp, Double)
    case ratingEqual(Double)
    case bornCompare(PredOp, Date)
    case bornEqual(Date)
    case nicknameIsNil(negated: Bool)
    case nicknameEquals(String?)
    case nicknameCoalesced(String)
    case nicknameContains(String)
    case nicknameCompare(PredOp, String)
    case teamIsNil(negated: Bool)
    case teamName(String?)
    case teamSizeAbove(Int)
    case active(negated: Bool)
    case mood(PredMood)
    case codeEquals(Int)
    case codeInList([Int])
    case identifierEquals(PersistentIdentifier)
    case identifierInList([PersistentIdentifier])
    case and(PredForm, PredForm)
    case or(PredForm, PredForm)
    case not(PredForm)

    var description: String {
        func s(_ string: String) -> String { string.debugDescription }
        switch self {
        case .intCompare(let indexed, let op, let value, let flipped):
            let attribute = indexed ? "$0.score" : "$0.points"
            return flipped ? "\(value) \(op) \(attribute)" : "\(attribute) \(op) \(value)"
        case .intEqual(let indexed, let value, let negated):
            return "\(indexed ? "$0.score" : "$0.points") \(negated ? "!=" : "==") \(value)"
        case .intInList(let indexed, let list): return "\(list).contains(\(indexed ? "$0.score" : "$0.points"))"
        case .stringCompare(let indexed, let op, let value):
            return "\(indexed ? "$0.name" : "$0.alias") \(op) \(s(value))"
        case .stringEqual(let indexed, let value, let negated):
            return "\(indexed ? "$0.name" : "$0.alias") \(negated ? "!=" : "==") \(s(value))"
        case .stringInList(let indexed, let list):
            return "\(list.map(s)).contains(\(indexed ? "$0.name" : "$0.alias"))"
        case .stringContains(let indexed, let value): return "\(indexed ? "$0.name" : "$0.alias").contains(\(s(value)))"
        case .stringStarts(let indexed, let value):
            return "\(indexed ? "$0.name" : "$0.alias").starts(with: \(s(value)))"
        case .ratingCompare(let op, let value): return "$0.rating \(op) \(value)"
        case .ratingEqual(let value): return "$0.rating == \(value)"
        case .bornCompare(let op, let value): return "$0.born \(op) \(value.timeIntervalSinceReferenceDate)"
        case .bornEqual(let value): return "$0.born == \(value.timeIntervalSinceReferenceDate)"
        case .nicknameIsNil(let negated): return "$0.nickname \(negated ? "!=" : "==") nil"
        case .nicknameEquals(let value): return "$0.nickname == \(value.map(s) ?? "nil")"
        case .nicknameCoalesced(let value): return "($0.nickname ?? \"\") == \(s(value))"
        case .nicknameContains(let value): return "$0.nickname.flatMap { $0.contains(\(s(value))) } ?? false"
        case .nicknameCompare(let op, let value): return "$0.nickname.flatMap { $0 \(op) \(s(value)) } ?? false"
        case .teamIsNil(let negated): return "$0.team \(negated ? "!=" : "==") nil"
        case .teamName(let value): return "$0.team?.name == \(value.map(s) ?? "nil")"
        case .teamSizeAbove(let value): return "($0.team?.members.count ?? 0) > \(value)"
        case .active(let negated): return negated ? "!$0.active" : "$0.active"
        case .mood(let mood): return "$0.mood == .\(mood)"
        case .codeEquals(let value): return "$0.code == \(value)"
        case .codeInList(let list): return "\(list).contains($0.code)"
        case .identifierEquals(let id): return "$0.persistentModelID == \(id)"
        case .identifierInList(let ids): return "\(ids).contains($0.persistentModelID)"
        case .and(let lhs, let rhs): return "(\(lhs) && \(rhs))"
        case .or(let lhs, let rhs): return "(\(lhs) || \(rhs))"
        case .not(let form): return "!(\(form))"
        }
    }

    /// A random tree; `members` give values that equalities and identifiers can hit.
    static func random(
        depth: Int, codes: Int, members: [PredMember], _ random: inout SeededGenerator
    ) -> PredForm {
        if depth > 0 && Int.random(in: 0..<3, using: &random) > 0 {
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1:
                return .and(
                    Self.random(depth: depth - 1, codes: codes, members: members, &random),
                    Self.random(depth: depth - 1, codes: codes, members: members, &random))
            case 2, 3:
                return .or(
                    Self.random(depth: depth - 1, codes: codes, members: members, &random),
                    Self.random(depth: depth - 1, codes: codes, members: members, &random))
            default: return .not(Self.random(depth: depth - 1, codes: codes, members: members, &random))
            }
        }
        return leaf(codes: codes, members: members, &random)
    }

    static func leaf(codes: Int, members: [PredMember], _ random: inout SeededGenerator) -> PredForm {
        let sample = members.randomElement(using: &random)
        func pick<T>(_ values: [T]) -> T { PredValues.pick(values, &random) }
        let indexed = Bool.random(using: &random)
        let op = pick(PredOp.allCases)
        let flag = Bool.random(using: &random)
        // Constants are mostly stored values, sometimes values no model has.
        let int = Int.random(in: -4...4, using: &random)
        let string = Int.random(in: 0..<8, using: &random) == 0 ? "q" : pick(PredValues.strings)
        let optionalString: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : string
        let code = Int.random(in: -1...codes, using: &random)
        switch Int.random(in: 0..<31, using: &random) {
        case 29 where sample != nil: return .identifierEquals(sample!.persistentModelID)
        case 30:
            return .identifierInList(
                (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in
                    members.randomElement(using: &random)?.persistentModelID
                })
        case 23, 26, 27:
            // Equalities on both attributes of a compound index, or one and a range on the next,
            // mostly at a stored member's values.
            let (score, name) =
                sample.map { Bool.random(using: &random) ? ($0.score, $0.name) : (int, string) } ?? (int, string)
            return .and(
                .intEqual(indexed: true, score, negated: false),
                flag ? .stringEqual(indexed: true, name, negated: false) : .stringCompare(indexed: true, op, name))
        case 24, 28:
            let (born, rating) =
                sample.map {
                    Bool.random(using: &random)
                        ? ($0.born, $0.rating) : (pick(PredValues.dates), pick(PredValues.doubles))
                }
                ?? (pick(PredValues.dates), pick(PredValues.doubles))
            return .and(.bornEqual(born), flag ? .ratingEqual(rating) : .ratingCompare(op, rating))
        case 0: return .intCompare(indexed: indexed, op, int, flipped: flag)
        case 1: return .intEqual(indexed: indexed, int, negated: flag)
        case 2:
            return .intInList(
                indexed: indexed, (0..<Int.random(in: 0...3, using: &random)).map { _ in pick(PredValues.ints) })
        case 3: return .stringCompare(indexed: indexed, op, string)
        case 4: return .stringEqual(indexed: indexed, string, negated: flag)
        case 5:
            return .stringInList(
                indexed: indexed, (0..<Int.random(in: 0...3, using: &random)).map { _ in pick(PredValues.strings) })
        case 6: return .stringContains(indexed: indexed, string)
        case 7: return .stringStarts(indexed: indexed, string)
        case 8: return .ratingCompare(op, pick(PredValues.doubles + [1.0]))
        case 9: return .ratingEqual(pick(PredValues.doubles))
        case 10: return .bornCompare(op, pick(PredValues.dates + [Date(timeIntervalSinceReferenceDate: 10)]))
        case 11: return .nicknameIsNil(negated: flag)
        case 12: return .nicknameEquals(optionalString)
        case 13: return .nicknameCoalesced(string)
        case 14: return .nicknameContains(string)
        case 15: return .nicknameCompare(op, string)
        case 16: return .teamIsNil(negated: flag)
        case 17: return .teamName(Int.random(in: 0..<4, using: &random) == 0 ? nil : pick(PredValues.teams + ["green"]))
        case 18: return .teamSizeAbove(Int.random(in: -1...6, using: &random))
        case 19: return .active(negated: flag)
        case 20: return .mood(pick(PredMood.allCases))
        case 21: return .codeEquals(code)
        case 25: return .bornEqual(pick(PredValues.dates + [Date(timeIntervalSinceReferenceDate: 10)]))
        default:
            return .codeInList(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: -1...codes, using: &random) })
        }
    }

    var predicate: Predicate<PredMember> { Predicate { self.expression($0) } }

    typealias Variable = PredicateExpressions.Variable<PredMember>
    typealias BoolExpression = any StandardPredicateExpression<Bool>

    /// The expression tree `#Predicate` would build for this form (see its expansion).
    func expression(_ v: Variable) -> BoolExpression {
        func key<T>(_ path: KeyPath<PredMember, T> & Sendable) -> PredicateExpressions.KeyPath<Variable, T> {
            PredicateExpressions.build_KeyPath(root: v, keyPath: path)
        }
        func value<T>(_ value: T) -> PredicateExpressions.Value<T> { PredicateExpressions.build_Arg(value) }
        func compare<L: StandardPredicateExpression, R: StandardPredicateExpression>(
            _ lhs: L, _ op: PredOp, _ rhs: R
        ) -> BoolExpression where L.Output == R.Output, L.Output: Comparable {
            PredicateExpressions.build_Comparison(lhs: lhs, rhs: rhs, op: op.foundation)
        }
        func equal<L: StandardPredicateExpression, R: StandardPredicateExpression>(
            _ lhs: L, _ rhs: R, negated: Bool = false
        ) -> BoolExpression where L.Output == R.Output, L.Output: Equatable {
            negated
                ? PredicateExpressions.build_NotEqual(lhs: lhs, rhs: rhs)
                : PredicateExpressions.build_Equal(lhs: lhs, rhs: rhs)
        }
        func and<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
            _ l: L, _ r: R
        )
            -> BoolExpression
        { PredicateExpressions.build_Conjunction(lhs: l, rhs: r) }
        func or<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
            _ l: L, _ r: R
        )
            -> BoolExpression
        { PredicateExpressions.build_Disjunction(lhs: l, rhs: r) }
        func not<E: StandardPredicateExpression<Bool>>(_ e: E) -> BoolExpression {
            PredicateExpressions.build_Negation(e)
        }
        let intKey = { (indexed: Bool) in key(indexed ? \PredMember.score : \PredMember.points) }
        let stringKey = { (indexed: Bool) in key(indexed ? \PredMember.name : \PredMember.alias) }
        switch self {
        case .intCompare(let indexed, let op, let int, let flipped):
            return flipped ? compare(value(int), op, intKey(indexed)) : compare(intKey(indexed), op, value(int))
        case .intEqual(let indexed, let int, let negated): return equal(intKey(indexed), value(int), negated: negated)
        case .intInList(let indexed, let list): return PredicateExpressions.build_contains(value(list), intKey(indexed))
        case .stringCompare(let indexed, let op, let string): return compare(stringKey(indexed), op, value(string))
        case .stringEqual(let indexed, let string, let negated):
            return equal(stringKey(indexed), value(string), negated: negated)
        case .stringInList(let indexed, let list):
            return PredicateExpressions.build_contains(value(list), stringKey(indexed))
        case .stringContains(let indexed, let string):
            return PredicateExpressions.build_contains(stringKey(indexed), value(string))
        case .stringStarts(let indexed, let string):
            return PredicateExpressions.build_starts(stringKey(indexed), with: value(string))
        case .ratingCompare(let op, let double): return compare(key(\.rating), op, value(double))
        case .ratingEqual(let double): return equal(key(\.rating), value(double))
        case .bornCompare(let op, let date): return compare(key(\.born), op, value(date))
        case .bornEqual(let date): return equal(key(\.born), value(date))
        case .nicknameIsNil(let negated):
            return equal(key(\.nickname), PredicateExpressions.build_NilLiteral(), negated: negated)
        case .nicknameEquals(let string): return equal(key(\.nickname), value(string))
        case .nicknameCoalesced(let string):
            return equal(PredicateExpressions.build_NilCoalesce(lhs: key(\.nickname), rhs: value("")), value(string))
        case .nicknameContains(let string):
            return PredicateExpressions.build_NilCoalesce(
                lhs: PredicateExpressions.build_flatMap(key(\.nickname)) {
                    PredicateExpressions.build_contains(PredicateExpressions.build_Arg($0), value(string))
                },
                rhs: value(false))
        case .nicknameCompare(let op, let string):
            return PredicateExpressions.build_NilCoalesce(
                lhs: PredicateExpressions.build_flatMap(key(\.nickname)) {
                    PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_Arg($0), rhs: value(string), op: op.foundation)
                },
                rhs: value(false))
        case .teamIsNil(let negated):
            return equal(key(\.team), PredicateExpressions.build_NilLiteral(), negated: negated)
        case .teamName(let name):
            return equal(
                PredicateExpressions.build_flatMap(key(\.team)) {
                    PredicateExpressions.build_KeyPath(root: PredicateExpressions.build_Arg($0), keyPath: \.name)
                }, value(name))
        case .teamSizeAbove(let size):
            return compare(
                PredicateExpressions.build_NilCoalesce(
                    lhs: PredicateExpressions.build_flatMap(key(\.team)) {
                        PredicateExpressions.build_KeyPath(
                            root: PredicateExpressions.build_KeyPath(
                                root: PredicateExpressions.build_Arg($0), keyPath: \.members),
                            keyPath: \.count)
                    },
                    rhs: value(0)), .greater, value(size))
        case .active(let negated): return negated ? not(key(\.active)) : key(\.active)
        case .mood(let mood): return equal(key(\.mood), value(mood))
        case .codeEquals(let code): return equal(key(\.code), value(code))
        case .codeInList(let list): return PredicateExpressions.build_contains(value(list), key(\.code))
        case .identifierEquals(let id): return equal(key(\.persistentModelID), value(id))
        case .identifierInList(let ids):
            return PredicateExpressions.build_contains(value(ids), key(\.persistentModelID))
        case .and(let lhs, let rhs): return and(lhs.expression(v), rhs.expression(v))
        case .or(let lhs, let rhs): return or(lhs.expression(v), rhs.expression(v))
        case .not(let form): return not(form.expression(v))
        }
    }
}

// MARK: - Sorts

enum PredSortKey: CaseIterable, CustomStringConvertible {
    case score, points, rating, name, born, nickname, code

    func descriptor(_ order: SortOrder) -> SortDescriptor<PredMember> {
        switch self {
        case .score: SortDescriptor(\.score, order: order)
        case .points: SortDescriptor(\.points, order: order)
        case .rating: SortDescriptor(\.rating, order: order)
        case .name: SortDescriptor(\.name, order: order)
        case .born: SortDescriptor(\.born, order: order)
        case .nickname: SortDescriptor(\.nickname, order: order)
        case .code: SortDescriptor(\.code, order: order)
        }
    }

    var description: String {
        switch self {
        case .score: "score"
        case .points: "points"
        case .rating: "rating"
        case .name: "name"
        case .born: "born"
        case .nickname: "nickname"
        case .code: "code"
        }
    }
}

// MARK: - The property

/// Which kinds of access path the plans used.
extension KindTally {
    func record(_ path: FetchPlan.AccessPath) {
        let kind =
            switch path {
            case .fullScan: "fullScan"
            case .identifiers: "identifiers"
            case .uniqueKey: "uniqueKey"
            case .indexEquality: "indexEquality"
            case .keyList: "keyList"
            case .indexRange: "indexRange"
            case .indexOrder: "indexOrder"
            case .compoundIndex: "compoundIndex"
            }
        record(kind)
    }
}

@Suite struct PredicateProperties {
    static func open() throws -> ModelContainer {
        try makeContainer(PredMember.self, PredTeam.self, in: TemporaryDirectory(), named: "Pred.store")
    }

    /// Saves `count` random members on three teams, then leaves unsaved changes in a new context:
    /// changed attributes, deleted members, inserted members, a changed team.
    static func scenario(count: Int, _ random: inout SeededGenerator) throws -> (ModelContext, ModelContext) {
        let container = try open()
        let writer = ModelContext(container)
        let teams = PredValues.teams.map { PredTeam(name: $0) }
        for team in teams { writer.insert(team) }
        for code in 0..<count {
            let member = PredMember(code: code)
            PredValues.randomize(member, &random)
            writer.insert(member)
            member.team = Bool.random(using: &random) ? nil : teams.randomElement(using: &random)
        }
        try writer.save()

        let context = ModelContext(container)
        let stored = try context.fetch(FetchDescriptor<PredMember>())
        for member in stored {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: PredValues.randomize(member, &random)
            case 1: member.score = PredValues.pick(PredValues.ints, &random)
            case 2: member.name = PredValues.pick(PredValues.strings, &random)
            case 3: context.delete(member)
            case 4: member.team = nil
            default: break
            }
        }
        for code in count..<(count + Int.random(in: 0...2, using: &random)) {
            let member = PredMember(code: code)
            PredValues.randomize(member, &random)
            context.insert(member)
        }
        return (context, ModelContext(container))
    }

    static func codes(_ members: [PredMember]) -> [Int] { members.map(\.code) }

    /// The reference: every model the context sees, filtered by evaluating the predicate, sorted
    /// and cut in memory.
    static func reference(
        _ everyone: [PredMember], _ descriptor: FetchDescriptor<PredMember>
    ) throws -> [Int] {
        var matches = try everyone.filter { try descriptor.predicate?.evaluate($0) ?? true }
        if !descriptor.sortBy.isEmpty { matches.sort(using: descriptor.sortBy) }
        let start = min(descriptor.fetchOffset ?? 0, matches.count)
        let end = descriptor.fetchLimit.map { min(start + $0, matches.count) } ?? matches.count
        let page = codes(Array(matches[start..<end]))
        return descriptor.sortBy.isEmpty ? page.sorted() : page
    }

    @Test func fetchesAgreeWithEvaluatingThePredicateInMemory() async {
        let input = zip(Gen.int(in: 0...40), Gen.int(in: 0...3), Gen.int(in: 0...Int(Int32.max)))
        let paths = KindTally()
        await propertyCheck(count: PropertyScale.count(60), input: input) { count, depth, seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let (context, fresh) = try Self.scenario(count: count, &random)
            let everyone = try context.fetch(FetchDescriptor<PredMember>())
            let everyoneStored = try fresh.fetch(FetchDescriptor<PredMember>())
            for _ in 0..<8 {
                let form = PredForm.random(depth: depth, codes: count, members: everyone, &random)
                var descriptor = FetchDescriptor<PredMember>(predicate: form.predicate)
                var sortText = ""
                if Bool.random(using: &random) {
                    // A sort that ends in the unique code, so the reference order is total.
                    let first = PredValues.pick(PredSortKey.allCases, &random)
                    let (firstOrder, codeOrder): (SortOrder, SortOrder) = (
                        Bool.random(using: &random) ? .forward : .reverse,
                        Bool.random(using: &random) ? .forward : .reverse
                    )
                    descriptor.sortBy = [first.descriptor(firstOrder), PredSortKey.code.descriptor(codeOrder)]
                    sortText = " sorted by \(first) \(firstOrder), code \(codeOrder)"
                    descriptor.fetchLimit = Bool.random(using: &random) ? Int.random(in: 0...8, using: &random) : nil
                    descriptor.fetchOffset = Bool.random(using: &random) ? Int.random(in: 0...4, using: &random) : nil
                }
                let shape =
                    "\(form)\(sortText) limit \(descriptor.fetchLimit.map(String.init) ?? "-") offset "
                    + "\(descriptor.fetchOffset.map(String.init) ?? "-") [seed \(seed)]"
                let plan = try context.explain(descriptor)
                paths.record(plan.accessPath)
                var fetched = Self.codes(try context.fetch(descriptor))
                if descriptor.sortBy.isEmpty { fetched.sort() }
                let expected = try Self.reference(everyone, descriptor)
                #expect(fetched == expected, "\(shape) via \(plan)")
                // The identifier and batch paths find and order matches without full models.
                var identified = try context.fetchIdentifiers(descriptor).map {
                    (context.model(for: $0) as! PredMember).code
                }
                var batched = Self.codes(Array(try context.fetch(descriptor, batchSize: 3)))
                if descriptor.sortBy.isEmpty {
                    identified.sort()
                    batched.sort()
                }
                #expect(identified == expected, "fetchIdentifiers: \(shape)")
                #expect(batched == expected, "fetch(_:batchSize:): \(shape)")
                if descriptor.fetchLimit == nil && descriptor.fetchOffset == nil {
                    #expect(try context.fetchCount(descriptor) == fetched.count, "\(shape)")
                }
                var storedOnly = descriptor
                storedOnly.includePendingChanges = false
                var stored = Self.codes(try context.fetch(storedOnly))
                if descriptor.sortBy.isEmpty { stored.sort() }
                let expectedStored = try Self.reference(everyoneStored, descriptor)
                #expect(stored == expectedStored, "stored only: \(shape)")
                var storedIdentified = try context.fetchIdentifiers(storedOnly).map {
                    (context.model(for: $0) as! PredMember).code
                }
                if descriptor.sortBy.isEmpty { storedIdentified.sort() }
                #expect(storedIdentified == expectedStored, "stored only, fetchIdentifiers: \(shape)")
            }
        }
        // The random predicates reached every access path, so the index paths were checked.
        #expect(
            paths.kinds == [
                "fullScan", "identifiers", "uniqueKey", "indexEquality", "keyList", "indexRange", "indexOrder",
                "compoundIndex",
            ],
            "access paths seen: \(paths.kinds)")
    }

    /// To-many forms: `.count`, `isEmpty`, `contains(where:)`, through the inverse of the
    /// members' to-one, with unsaved changes.
    @Test func toManyFormsAgreeWithEvaluatingInMemory() async {
        await propertyCheck(
            count: PropertyScale.count(30), input: zip(Gen.int(in: 0...30), Gen.int(in: 0...Int(Int32.max)))
        ) {
            count, seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let (context, _) = try Self.scenario(count: count, &random)
            let teams = try context.fetch(FetchDescriptor<PredTeam>())
            let size = Int.random(in: -1...5, using: &random)
            let score = PredValues.pick(PredValues.ints, &random)
            let name = PredValues.pick(PredValues.teams, &random)
            let predicates: [(String, Predicate<PredTeam>)] = [
                ("members.count > \(size)", #Predicate { $0.members.count > size }),
                ("members.isEmpty", #Predicate { $0.members.isEmpty }),
                ("!members.isEmpty && name == \(name)", #Predicate { !$0.members.isEmpty && $0.name == name }),
                ("members.contains { score > \(score) }", #Predicate { $0.members.contains { $0.score > score } }),
                (
                    "members.filter { active }.count >= \(size)",
                    #Predicate { $0.members.filter { $0.active }.count >= size }
                ),
            ]
            for (text, predicate) in predicates {
                let expected = try teams.filter { try predicate.evaluate($0) }.map(\.name).sorted()
                let fetched = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.name).sorted()
                #expect(fetched == expected, "\(text) [seed \(seed)]")
            }
        }
    }

    @Test func aPredicateThatThrowsIsAFetchError() throws {
        let context = ModelContext(try Self.open())
        let member = PredMember(code: 1)
        context.insert(member)
        try context.save()
        let descriptor = FetchDescriptor<PredMember>(predicate: #Predicate { $0.nickname!.isEmpty })
        let error = #expect(throws: FetchError.self) { try context.fetch(descriptor) }
        #expect(error?.code == .predicateFailed && error?.model == member.persistentModelID)
        #expect(error?.message.contains("FetchDescriptor<PredMember>") == true)
        #expect(error?.message.contains("ForcedUnwrap") == true, "the message names the expression")
    }
}
