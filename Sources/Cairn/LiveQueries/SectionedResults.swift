import Foundation

/// Results grouped into sections by a key path, as SwiftData's `SectionedResults`: a
/// `RandomAccessCollection` of ``ResultsSection``s in the order each title first appears in the
/// sorted results (the section key is sorted first, so each section's models are together).
///
/// ```swift
/// let observer = try ResultsObserver<Book, String>(sortBy: [SortDescriptor(\.title)], sectionBy: \.genre,
///                                                  modelContext: context)
/// for section in observer.sections ?? SectionedResults() {
///     print(section.title, section.map(\.title))
/// }
/// let poetry = observer.sections?[sectionTitle: "Poetry"]?.count ?? 0
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Equatable {
    private let sections: [ResultsSection<Element, SectionTitle>]
    /// Each title's position in ``sections``.
    private let positions: [SectionTitle: Int]

    /// No sections.
    ///
    /// ```swift
    /// let none = SectionedResults<Book, String>()
    /// ```
    public init() {
        sections = []
        positions = [:]
    }

    /// Groups `models` (in their order) by `title`, sections in order of first appearance.
    init(_ models: [Element], title: (Element) -> SectionTitle) {
        var members: [[Element]] = []
        var titles: [SectionTitle] = []
        var positions: [SectionTitle: Int] = [:]
        for model in models {
            let key = title(model)
            if let position = positions[key] {
                members[position].append(model)
            } else {
                positions[key] = titles.count
                titles.append(key)
                members.append([model])
            }
        }
        sections = zip(titles, members).map { ResultsSection(title: $0, models: $1) }
        self.positions = positions
    }

    /// The first section's position, 0.
    ///
    /// ```swift
    /// let first = results[results.startIndex]
    /// ```
    public var startIndex: Int { 0 }
    /// The number of sections.
    ///
    /// ```swift
    /// for position in results.startIndex..<results.endIndex { print(results[position].title) }
    /// ```
    public var endIndex: Int { sections.count }

    /// The section at `position`.
    ///
    /// ```swift
    /// let first = results[0]
    /// ```
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> {
        precondition(
            position >= 0 && position < sections.count,
            "SectionedResults: index \(position) is out of bounds (\(sections.count) sections)")
        return sections[position]
    }

    /// The sections' titles, in order.
    ///
    /// ```swift
    /// let genres = results.sectionTitles   // ["Novel", "Poetry"]
    /// ```
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }

    /// Whether a section has `title`. O(1).
    ///
    /// ```swift
    /// if results.contains(sectionTitle: "Poetry") { … }
    /// ```
    public func contains(sectionTitle title: SectionTitle) -> Bool { positions[title] != nil }

    /// The position of the section titled `title`, or `nil`. O(1).
    ///
    /// ```swift
    /// let position = results.index(ofSectionTitled: "Poetry")
    /// ```
    public func index(ofSectionTitled title: SectionTitle) -> Int? { positions[title] }

    /// The section titled `title`, or `nil`. O(1).
    ///
    /// ```swift
    /// let poems = results[sectionTitle: "Poetry"]?.count ?? 0
    /// ```
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }

    /// Whether both have the same sections, with the same models (the same instances) in the
    /// same order.
    ///
    /// ```swift
    /// if old != observer.sections { reload() }
    /// ```
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.sections == rhs.sections }
}

/// One section of ``SectionedResults``: the models whose section key is ``title``, in the
/// results' order, as a `RandomAccessCollection`, as SwiftData's `ResultsSection`.
///
/// ```swift
/// for section in sections {
///     print(section.title)
///     for book in section { print("  ", book.title) }
/// }
/// ```
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable,
    Equatable
{
    /// The value of the section key its models share (`""` for `nil` with a `String?` key).
    ///
    /// ```swift
    /// Text(section.title)
    /// ```
    public let title: SectionTitle
    private let models: [Element]

    init(title: SectionTitle, models: [Element]) {
        self.title = title
        self.models = models
    }

    /// The section's identity: its ``title``.
    ///
    /// ```swift
    /// ForEach(sections) { section in Text(section.id) }
    /// ```
    public var id: SectionTitle { title }

    /// The first model's position, 0.
    ///
    /// ```swift
    /// let first = section[section.startIndex]
    /// ```
    public var startIndex: Int { 0 }
    /// The number of models.
    ///
    /// ```swift
    /// let count = section.endIndex
    /// ```
    public var endIndex: Int { models.count }

    /// The model at `position`.
    ///
    /// ```swift
    /// let first = section[0]
    /// ```
    public subscript(position: Int) -> Element {
        precondition(
            position >= 0 && position < models.count,
            "ResultsSection: index \(position) is out of bounds (count \(models.count))")
        return models[position]
    }

    /// Whether both have the same title and the same models (the same instances) in the same order.
    ///
    /// ```swift
    /// if old != section { redraw(section) }
    /// ```
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.title == rhs.title && lhs.models.count == rhs.models.count
            && zip(lhs.models, rhs.models).allSatisfy { $0 === $1 }
    }
}
