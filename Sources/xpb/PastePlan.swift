import UniformTypes
import X11Pasteboard

/// Which target `xpb paste` asks the owner for and how its bytes reach the user (what
/// `xpb watch --exec` feeds its command, too): the library's `TargetOffer` policy, plus the
/// command line's own rule that an exact target name gives that target's bytes untouched, as
/// `xclip -t` does.
struct PastePlan {
    /// The target and the type its bytes become.
    var plan: ReadPlan

    /// A plan already chosen.
    init(plan: ReadPlan) {
        self.plan = plan
    }

    /// Chooses among the owner's targets: the one `typeArgument` names (a parent type such as
    /// `public.image` picks the owner's best conforming target), else the best text, else the
    /// first target.
    ///
    /// - Throws: exit 1 when the type is not offered or nothing is; exit 2 for an unknown type.
    init(typeArgument: String?, offer: TargetOffer, selectionName: String) throws(CommandFailure) {
        if let typeArgument {
            if offer.targets.contains(typeArgument) {
                plan = ReadPlan(target: typeArgument, type: nil)
                return
            }
            let wanted = try TypeArgumentParsing.resolve(typeArgument)
            guard let chosen = offer.plan(for: wanted) else {
                throw CommandFailure(
                    "\(selectionName) does not offer \(typeArgument) (it offers: \(offer.targets.joined(separator: ", ")))", exitCode: 1)
            }
            plan = chosen
        } else if let chosen = offer.defaultPlan() {
            plan = chosen
        } else {
            throw CommandFailure("\(selectionName) offers nothing to paste", exitCode: 1)
        }
    }

    /// Converts and hands the result to `sink`: chunk by chunk when it streams (nothing is held
    /// whole, and the type table is never loaded: the everyday text paste stays fast), else whole.
    func deliver(
        from reader: SelectionReader, _ selection: XAtom, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws(CommandFailure) {
        do {
            if plan.streams {
                try reader.convert(selection, to: reader.connection.atom(plan.target)) { bytes in try sink(bytes) }
                return
            }
            let decoded = try reader.read(selection, plan: plan)
            try decoded.withUnsafeBytes { raw in try sink(raw) }
        } catch let error as PasteboardError {
            throw CommandFailure(error)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
