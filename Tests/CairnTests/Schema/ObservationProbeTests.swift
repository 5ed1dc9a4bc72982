import Observation
import Testing

@testable import Cairn

/// What a context's probe answers, inside and outside tracking closures, and after one ends.
@Suite struct ObservationProbeTests {
    @Test func trackingCanBeDetectedHere() {
        #expect(ObservationProbe.detectsTracking, "an access in a tracking closure retains its key path")
    }

    @Test func theProbeAnswersFalseOnlyOutsideTracking() throws {
        let probe = try #require(ObservationProbe.make())
        #expect(!probe.isTracking())
        #expect(!probe.isTracking(), "asking registers nothing that stays")
        var inside: [Bool] = []
        withObservationTracking {
            inside.append(probe.isTracking())
            inside.append(probe.isTracking())
        } onChange: {
        }
        #expect(inside == [true, true], "the first and every later read of one tracking")
    }

    @Test func aNestedTrackingIsDetectedAndSoIsTheOuterOneAfterIt() throws {
        let probe = try #require(ObservationProbe.make())
        let other = try #require(ObservationProbe.make())
        var answers: [Bool] = []
        withObservationTracking {
            withObservationTracking {
                answers.append(probe.isTracking())
            } onChange: {
            }
            answers.append(other.isTracking())
        } onChange: {
        }
        #expect(answers == [true, true])
    }

    /// A tracking that read the probe and has not been told of a change keeps an observer on it:
    /// the probe then answers `true` everywhere (a registrar too many, never one too few) without
    /// registering more accesses, until the tracking ends.
    @Test func aProbeHeldByAnInstalledTrackingErrsTowardTracking() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try libraryContainer(directory))
        let first = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org")
        let second = LibraryAuthor(firstName: "Fanny", lastName: "Burney", email: "fanny@example.org")
        context.insert(first)
        context.insert(second)
        try context.save()
        let probe = try #require(context.link.probe)
        #expect(!probe.isTracking())
        withObservationTracking {
            _ = first.lastName
        } onChange: {
        }
        #expect(probe.isTracking(), "the installed tracking holds the probe")
        _ = second.lastName
        #expect(second._$modelState.hasRegistrar, "a read while the probe is held makes the registrar")
        first.lastName = "Fairfax"
        #expect(!probe.isTracking(), "the change ended the tracking, and it let the probe go")
    }

    /// The trackings installed on a context's probe go with it: the probe's registrar drops their
    /// observers, as a model's registrar does when the model goes.
    @Test func aTrackingThatNeverFiresIsReleasedWithItsContext() throws {
        weak var observer: ObserverToken?
        do {
            let directory = TemporaryDirectory()
            let context = ModelContext(try libraryContainer(directory))
            let author = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org")
            context.insert(author)
            try context.save()
            let token = ObserverToken()
            observer = token
            withObservationTracking {
                _ = author.lastName
            } onChange: {
                token.fired()
            }
        }
        #expect(observer == nil, "nothing keeps the tracking once its models and context are gone")
    }
}

/// An object an `onChange` closure holds, to tell when the tracking that holds it is released.
private final class ObserverToken: Sendable {
    func fired() {}
}
