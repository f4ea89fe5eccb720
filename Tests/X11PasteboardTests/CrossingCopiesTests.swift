import Testing
import X11Pasteboard

/// Two sides that mirror each other both ways, played step by step: whatever the order in which
/// copies cross, both sides end with the same one.
@Suite struct CrossingCopiesTests {
    /// Side `from` sends a copy of `selection`; it arrives at `to` (counted), stamped as on the wire.
    static func send(_ selection: String, from: CrossingCopies, to: CrossingCopies) -> CopyStamp {
        let seen = from.sending(selection)
        return CopyStamp(index: to.receivedOne(), seen: seen)
    }

    @Test func aLoneCopyIsTaken() {
        let (a, b) = (CrossingCopies(), CrossingCopies())
        let copy = Self.send("CLIPBOARD", from: a, to: b)
        #expect(b.accepts(copy, for: "CLIPBOARD", winsCrossing: true))
        // The answer that saw it is newer: taken back on a.
        let reply = Self.send("CLIPBOARD", from: b, to: a)
        #expect(a.accepts(reply, for: "CLIPBOARD", winsCrossing: true))
    }

    @Test func crossingCopiesEndTheSameOnBothSides() {
        for aWins in [true, false] {
            let (a, b) = (CrossingCopies(), CrossingCopies())
            // Both copy before either copy arrives.
            let seenByA = a.sending("CLIPBOARD")
            let seenByB = b.sending("CLIPBOARD")
            let fromA = CopyStamp(index: b.receivedOne(), seen: seenByA)
            let fromB = CopyStamp(index: a.receivedOne(), seen: seenByB)
            let aTakesB = a.accepts(fromB, for: "CLIPBOARD", winsCrossing: aWins)
            let bTakesA = b.accepts(fromA, for: "CLIPBOARD", winsCrossing: !aWins)
            #expect(aTakesB != bTakesA, "exactly one side gives way (a wins: \(aWins))")
            #expect(bTakesA == aWins, "the winner's copy is the one both keep")
        }
    }

    @Test func aCopyMadeAfterOneArrivedButBeforeItWasTakenWins() {
        let (a, b) = (CrossingCopies(), CrossingCopies())
        let fromA = Self.send("CLIPBOARD", from: a, to: b)
        // b's user copies after a's copy arrived at b, before b took it.
        let fromB = Self.send("CLIPBOARD", from: b, to: a)
        for bWins in [true, false] {
            #expect(!b.accepts(fromA, for: "CLIPBOARD", winsCrossing: bWins), "b keeps its own, newer copy")
            #expect(a.accepts(fromB, for: "CLIPBOARD", winsCrossing: !bWins), "a takes b's copy")
        }
    }

    @Test func selectionsAreWeighedApart() {
        let (a, b) = (CrossingCopies(), CrossingCopies())
        _ = a.sending("PRIMARY")
        let fromB = Self.send("CLIPBOARD", from: b, to: a)
        #expect(a.accepts(fromB, for: "CLIPBOARD", winsCrossing: true))
    }
}
