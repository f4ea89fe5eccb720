/// Atom values and names a connection has already asked the server about, so each costs one
/// round trip at most. Plain arrays: a connection knows a few dozen atoms, and no hashing keeps
/// the first paste of a process free of the runtime's conformance search.
struct AtomNameCache {
    // The core protocol fixes these values (Xatom.h), so they never need a round trip.
    private var names = ["PRIMARY", "SECONDARY", "ATOM", "INTEGER", "STRING"]
    private var values: [UInt] = [1, 2, 4, 19, 31]

    func atom(named name: String) -> UInt? {
        names.firstIndex(of: name).map { values[$0] }
    }

    func name(of atom: UInt) -> String? {
        values.firstIndex(of: atom).map { names[$0] }
    }

    mutating func add(_ name: String, _ atom: UInt) {
        guard self.atom(named: name) == nil else { return }
        names.append(name)
        values.append(atom)
    }
}
