/// Atom values and names a connection has already asked the server about, so each costs one
/// round trip at most. Plain arrays: a connection knows a few dozen atoms, and no hashing keeps
/// the first paste of a process free of the runtime's conformance search.
struct AtomNameCache {
    private var names: [String] = []
    private var values: [UInt] = []

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
