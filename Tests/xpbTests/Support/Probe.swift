import Foundation
import XTestSupport

/// A small X11 selection requestor written for these tests (C over Xlib, compiled at suite
/// start), so that protocol answers are checked by something other than xpb itself.
///
///     probe init                      intern the atoms peers look up with only_if_exists
///     probe owner SEL                 the owner window of SEL, "0x..." ("0x0" = None)
///     probe time                      the current server time
///     probe convert SEL TARGET        convert once; prints the reply; exit 2 = refused, 3 = timeout
///     probe multiple SEL              MULTIPLE with [UTF8_STRING→P1, XPB_PROBE_BOGUS_TARGET→P2, STRING→P3]
///     probe incr SEL TARGET abandon   start an INCR transfer, take the first chunk, exit without a word
///     probe incr SEL TARGET steal     after the first chunk take SEL away from its owner, then read
///                                     on; prints "received N fnv H" (FNV-1a 64 of the bytes)
///     probe incr SEL TARGET stall     after the first chunk hold still for 2 s, then exit
///     probe silent SEL SECONDS        take SEL, print "owned", then answer nothing (never read an
///                                     event) for SECONDS and exit: a hung owner
///     probe reuse SEL BIG SMALL       start BIG (INCR) into a property, then convert SMALL into the
///                                     same one; prints "small HEX" and, 300 ms later, "after absent"
///                                     (or what the owner still wrote there)
///     probe drag SEL N MS HOLD        a mouse drag: N windows take SEL in turn, one every MS ms,
///                                     window k serving UTF8_STRING "drag step k"; then the last
///                                     serves for HOLD seconds
enum Probe {
    static func build(into directory: URL) async throws -> String {
        let compiler = try Tools.required("cc", package: "gcc (and libx11-dev)")
        let source = directory.appendingPathComponent("probe.c")
        let binary = directory.appendingPathComponent("xpb-e2e-probe")
        try Data(cSource.utf8).write(to: source)
        let cc = try await ChildProcess.run(compiler, ["-O1", "-o", binary.path, source.path, "-lX11"], timeout: .seconds(120))
        guard cc.status == 0 else {
            let ended = cc.timedOut ? "killed after 120 s" : "\(cc.termination.map(String.init(describing:)) ?? "")"
            throw HarnessError.missingTool(
                "cannot compile the test requestor with `cc ... -lX11` (needs gcc and libx11-dev; \(ended)):\n\(cc.stdoutText)\(cc.stderrText)")
        }
        return binary.path
    }

    /// One property as the probe printed it.
    struct Value: Equatable, CustomStringConvertible {
        var type: String
        var format: Int
        var items: Int
        /// Format 8 data.
        var bytes: Data
        /// Format 32 items: atom names for ATOM/ATOM_PAIR/TARGETS, decimal numbers otherwise.
        var words: [String]

        var description: String {
            "type \(type) format \(format) items \(items)"
                + (format == 8 ? " bytes \(String(decoding: bytes, as: UTF8.self).debugDescription)" : " \(words)")
        }

        /// Parses "LABEL type T format F items N [hex HEX | W W W]"; nil for "LABEL absent".
        init?(line: Substring) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 7, fields[1] == "type", fields[3] == "format", fields[5] == "items",
                  let format = Int(fields[4]), let items = Int(fields[6]) else { return nil }
            type = fields[2]
            self.format = format
            self.items = items
            bytes = Data()
            words = []
            if format == 8 {
                if fields.count >= 9, fields[7] == "hex" {
                    guard let data = Data(hexString: fields[8]) else { return nil }
                    bytes = data
                }
            } else {
                words = Array(fields.dropFirst(7))
            }
        }
    }

    enum Reply: Equatable, CustomStringConvertible {
        case value(Value)
        case refused
        case timedOut
        case failed(String)

        var description: String {
            switch self {
            case .value(let value): "\(value)"
            case .refused: "refused (property None)"
            case .timedOut: "no SelectionNotify within 5 s"
            case .failed(let text): "probe failed: \(text)"
            }
        }

        var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }
    }

    static func parseConvert(_ result: RunResult) -> Reply {
        let lines = result.stdoutText.split(separator: "\n")
        if result.status == 2, lines.first == "refused" { return .refused }
        if result.status == 3 { return .timedOut }
        guard result.status == 0, !result.signaled,
              let line = lines.first(where: { $0.hasPrefix("value ") }), let value = Value(line: line) else {
            return .failed(result.description)
        }
        return .value(value)
    }

    /// What came back from a MULTIPLE conversion.
    struct MultipleReply: CustomStringConvertible {
        var raw: String
        var refused: Bool
        /// The ATOM_PAIR list as it stands after the conversion (target, property) with "None".
        var pairs: [(target: String, property: String)]
        var pairsType: String?
        var properties: [String: Value]

        var description: String { raw }
    }

    static func parseMultiple(_ result: RunResult) -> MultipleReply {
        let text = result.stdoutText
        var reply = MultipleReply(raw: result.description, refused: result.status == 2, pairs: [], pairsType: nil, properties: [:])
        for line in text.split(separator: "\n") {
            if line.hasPrefix("pairs ") {
                if let value = Value(line: line) {
                    reply.pairsType = value.type
                    var words = value.words[...]
                    while words.count >= 2 {
                        reply.pairs.append((words.removeFirst(), words.removeFirst()))
                    }
                } else {
                    reply.pairsType = "absent"
                }
            } else if line.hasPrefix("XPB_PROBE_P") {
                let name = String(line.prefix(while: { $0 != " " }))
                if let value = Value(line: line) { reply.properties[name] = value }
            }
        }
        return reply
    }

    static let cSource = #"""
/* Test-only X11 selection requestor for the xpb end-to-end tests. */
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

static Display *dpy;
static Window win;

static int on_error(Display *d, XErrorEvent *e) {
    char text[256];
    XGetErrorText(d, e->error_code, text, sizeof text);
    fprintf(stderr, "probe: X error: %s (request %d)\n", text, e->request_code);
    return 0;
}

static Atom atom(const char *name) { return XInternAtom(dpy, name, False); }

static const char *name_of(Atom a) {
    static char buf[8][512];
    static int slot;
    if (a == None) return "None";
    char *n = XGetAtomName(dpy, a);
    char *out = buf[slot++ % 8];
    snprintf(out, 512, "%s", n ? n : "?");
    if (n) XFree(n);
    return out;
}

static long now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1000L + tv.tv_usec / 1000;
}

/* Waits for an event of `type` on our window; 1 when found, 0 on timeout. */
static int wait_event(int type, XEvent *out, int timeout_ms) {
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        while (XPending(dpy)) {
            XEvent ev;
            XNextEvent(dpy, &ev);
            if (ev.type == type && ev.xany.window == win) { *out = ev; return 1; }
        }
        long left = deadline - now_ms();
        if (left <= 0) return 0;
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(ConnectionNumber(dpy), &fds);
        struct timeval tv = { left / 1000, (left % 1000) * 1000 };
        select(ConnectionNumber(dpy) + 1, &fds, NULL, NULL, &tv);
    }
}

static void print_hex(const unsigned char *p, unsigned long n) {
    for (unsigned long i = 0; i < n; i++) printf("%02x", p[i]);
}

/* Prints "type T format F items N" and the value: hex for format 8, atoms or integers for 32. */
static int print_property(Atom prop, const char *label) {
    Atom type; int format; unsigned long items, after; unsigned char *data = NULL;
    if (XGetWindowProperty(dpy, win, prop, 0, 0x7fffffff, False, AnyPropertyType,
                           &type, &format, &items, &after, &data) != Success || type == None) {
        printf("%s absent\n", label);
        if (data) XFree(data);
        return 0;
    }
    printf("%s type %s format %d items %lu", label, name_of(type), format, items);
    if (format == 8) {
        printf(" hex ");
        print_hex(data, items);
    } else if (format == 32) {
        unsigned long *v = (unsigned long *)data;
        for (unsigned long i = 0; i < items; i++) {
            if (type == XA_ATOM || type == atom("ATOM_PAIR") || type == atom("TARGETS"))
                printf(" %s", name_of((Atom)v[i]));
            else
                printf(" %lu", v[i]);
        }
    } else if (format == 16) {
        unsigned short *v = (unsigned short *)data;
        for (unsigned long i = 0; i < items; i++) printf(" %u", v[i]);
    }
    printf("\n");
    if (data) XFree(data);
    return 1;
}

static int convert(Atom sel, Atom target, Atom prop, XEvent *notify) {
    XConvertSelection(dpy, sel, target, prop, win, CurrentTime);
    XFlush(dpy);
    if (!wait_event(SelectionNotify, notify, 5000)) {
        printf("timeout\n");
        return 0;
    }
    return 1;
}

/* Waits for PropertyNotify(NewValue) of `prop` on our window; 1 when it came. */
static int wait_new_value(Atom prop, int timeout_ms) {
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        XEvent ev;
        if (!wait_event(PropertyNotify, &ev, (int)(deadline - now_ms()))) return 0;
        if (ev.xproperty.atom == prop && ev.xproperty.state == PropertyNewValue) return 1;
    }
}

/* A requestor that misbehaves in the ways ICCCM owners must survive (see the usage above). */
static int incr_requestor(Atom sel, Atom target, const char *how) {
    Atom prop = atom("XPB_PROBE_INCR"), type; int format; unsigned long items, after; unsigned char *data = NULL;
    XEvent ev;
    XDeleteProperty(dpy, win, prop);
    if (!convert(sel, target, prop, &ev)) return 3;
    if (ev.xselection.property == None) { printf("refused\n"); return 2; }
    XGetWindowProperty(dpy, win, prop, 0, 0x7fffffff, True, AnyPropertyType, &type, &format, &items, &after, &data);
    if (data) XFree(data);
    if (type != atom("INCR")) { printf("not-incr %s\n", name_of(type)); return 4; }
    if (!wait_new_value(prop, 5000)) { printf("timeout first chunk\n"); return 3; }
    if (!strcmp(how, "abandon")) { printf("abandoned\n"); fflush(stdout); _exit(0); }
    if (!strcmp(how, "stall")) { printf("stalling\n"); fflush(stdout); sleep(2); _exit(0); }
    Window thief = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    XSetSelectionOwner(dpy, sel, thief, CurrentTime);
    XSync(dpy, False);
    unsigned long long total = 0, hash = 1469598103934665603ULL;
    for (;;) {
        XGetWindowProperty(dpy, win, prop, 0, 0x7fffffff, True, AnyPropertyType, &type, &format, &items, &after, &data);
        for (unsigned long i = 0; i < items; i++) { hash ^= data[i]; hash *= 1099511628211ULL; }
        total += items;
        if (data) XFree(data);
        if (items == 0) break;
        if (!wait_new_value(prop, 5000)) { printf("timeout after %llu\n", total); return 3; }
    }
    printf("received %llu fnv %llx\n", total, hash);
    return 0;
}

/* A requestor that gives up on an INCR transfer by reusing its property for the next
   conversion, as GTK (one GDK_SELECTION property for everything) can. */
static int reuse_requestor(Atom sel, Atom big, Atom small) {
    Atom prop = atom("XPB_PROBE_REUSE"), type; int format; unsigned long items, after; unsigned char *data = NULL;
    XEvent ev;
    XDeleteProperty(dpy, win, prop);
    if (!convert(sel, big, prop, &ev) || ev.xselection.property == None) { printf("big refused\n"); return 2; }
    XGetWindowProperty(dpy, win, prop, 0, 0x7fffffff, True, AnyPropertyType, &type, &format, &items, &after, &data);
    if (data) { XFree(data); data = NULL; }
    if (type != atom("INCR")) { printf("not-incr\n"); return 4; }
    if (!wait_new_value(prop, 5000)) { printf("timeout first chunk\n"); return 3; }
    /* Leave the first chunk where it is: the owner waits for its deletion, which never comes. */
    Atom other = atom("XPB_PROBE_REUSE_OTHER");
    XDeleteProperty(dpy, win, other);
    XDeleteProperty(dpy, win, prop);
    XConvertSelection(dpy, sel, small, prop, win, CurrentTime);
    XFlush(dpy);
    if (!wait_event(SelectionNotify, &ev, 5000) || ev.xselection.property == None) { printf("small refused\n"); return 2; }
    XGetWindowProperty(dpy, win, prop, 0, 0x7fffffff, True, AnyPropertyType, &type, &format, &items, &after, &data);
    printf("small ");
    print_hex(data, items);
    printf("\n");
    if (data) XFree(data);
    usleep(300000);
    print_property(prop, "after");
    return 0;
}

/* A drag: N owners of SEL in turn, each answering TARGETS and UTF8_STRING ("drag step K"). */
static int drag_owner(Atom sel, int n, int interval_ms, int hold_s) {
    Window *owners = calloc((size_t)n, sizeof *owners);
    for (int k = 0; k < n; k++) owners[k] = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    Atom targets = atom("TARGETS"), utf8 = atom("UTF8_STRING");
    int step = 0;
    long next = now_ms(), end = 0;
    for (;;) {
        long now = now_ms();
        if (step < n && now >= next) {
            XSetSelectionOwner(dpy, sel, owners[step], CurrentTime);
            XFlush(dpy);
            step++;
            next = now + interval_ms;
            if (step == n) end = now + hold_s * 1000L;
        }
        if (step == n && now >= end) break;
        while (XPending(dpy)) {
            XEvent ev;
            XNextEvent(dpy, &ev);
            if (ev.type != SelectionRequest) continue;
            XSelectionRequestEvent *rq = &ev.xselectionrequest;
            XSelectionEvent reply = { .type = SelectionNotify, .display = dpy, .requestor = rq->requestor,
                .selection = rq->selection, .target = rq->target, .property = None, .time = rq->time };
            Atom prop = rq->property == None ? rq->target : rq->property;
            int k = 0;
            while (k < n && owners[k] != rq->owner) k++;
            if (rq->target == targets) {
                Atom list[2] = { targets, utf8 };
                XChangeProperty(dpy, rq->requestor, prop, XA_ATOM, 32, PropModeReplace, (unsigned char *)list, 2);
                reply.property = prop;
            } else if (rq->target == utf8 && k < n) {
                char text[32];
                snprintf(text, sizeof text, "drag step %d", k + 1);
                XChangeProperty(dpy, rq->requestor, prop, utf8, 8, PropModeReplace, (unsigned char *)text, (int)strlen(text));
                reply.property = prop;
            }
            XSendEvent(dpy, rq->requestor, False, 0, (XEvent *)&reply);
            XFlush(dpy);
        }
        long wait = step < n ? next - now_ms() : end - now_ms();
        struct pollfd pfd = { .fd = ConnectionNumber(dpy), .events = POLLIN };
        if (wait > 0) poll(&pfd, 1, (int)(wait > 50 ? 50 : wait));
    }
    printf("dragged %d\n", n);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: probe init | owner SEL | time | convert SEL TARGET | multiple SEL\n");
        return 64;
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    dpy = XOpenDisplay(NULL);
    if (!dpy) { fprintf(stderr, "probe: cannot open display\n"); return 70; }
    XSetErrorHandler(on_error);
    win = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    XSelectInput(dpy, win, PropertyChangeMask);
    const char *mode = argv[1];

    if (!strcmp(mode, "init")) {
        const char *names[] = { "CLIPBOARD", "UTF8_STRING", "TEXT", "TARGETS", "TIMESTAMP", "MULTIPLE",
                                "ATOM_PAIR", "INCR", "text/plain", "text/plain;charset=utf-8", "COMPOUND_TEXT" };
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) atom(names[i]);
        XSync(dpy, False);
        printf("ok\n");
    } else if (!strcmp(mode, "owner") && argc == 3) {
        printf("0x%lx\n", (unsigned long)XGetSelectionOwner(dpy, atom(argv[2])));
    } else if (!strcmp(mode, "time")) {
        Atom p = atom("XPB_PROBE_TIME");
        XChangeProperty(dpy, win, p, XA_STRING, 8, PropModeAppend, (unsigned char *)"", 0);
        XFlush(dpy);
        XEvent ev;
        if (!wait_event(PropertyNotify, &ev, 5000)) { printf("timeout\n"); return 3; }
        printf("%lu\n", (unsigned long)ev.xproperty.time);
    } else if (!strcmp(mode, "convert") && argc == 4) {
        Atom prop = atom("XPB_PROBE_RESULT");
        XDeleteProperty(dpy, win, prop);
        XEvent ev;
        if (!convert(atom(argv[2]), atom(argv[3]), prop, &ev)) { fflush(stdout); return 3; }
        if (ev.xselection.property == None) { printf("refused\n"); fflush(stdout); return 2; }
        printf("notify target %s property %s\n", name_of(ev.xselection.target), name_of(ev.xselection.property));
        print_property(ev.xselection.property, "value");
    } else if (!strcmp(mode, "multiple") && argc == 3) {
        Atom pairs_prop = atom("XPB_PROBE_MULTIPLE");
        Atom p1 = atom("XPB_PROBE_P1"), p2 = atom("XPB_PROBE_P2"), p3 = atom("XPB_PROBE_P3");
        XDeleteProperty(dpy, win, p1);
        XDeleteProperty(dpy, win, p2);
        XDeleteProperty(dpy, win, p3);
        unsigned long pairs[6] = { atom("UTF8_STRING"), p1, atom("XPB_PROBE_BOGUS_TARGET"), p2, XA_STRING, p3 };
        XChangeProperty(dpy, win, pairs_prop, atom("ATOM_PAIR"), 32, PropModeReplace, (unsigned char *)pairs, 6);
        XEvent ev;
        if (!convert(atom(argv[2]), atom("MULTIPLE"), pairs_prop, &ev)) { fflush(stdout); return 3; }
        if (ev.xselection.property == None) { printf("refused\n"); fflush(stdout); return 2; }
        printf("notify target %s property %s\n", name_of(ev.xselection.target), name_of(ev.xselection.property));
        print_property(pairs_prop, "pairs");
        print_property(p1, "XPB_PROBE_P1");
        print_property(p2, "XPB_PROBE_P2");
        print_property(p3, "XPB_PROBE_P3");
    } else if (!strcmp(mode, "silent") && argc == 4) {
        Atom sel = atom(argv[2]);
        XChangeProperty(dpy, win, atom("XPB_PROBE_TIME"), XA_STRING, 8, PropModeAppend, (unsigned char *)"", 0);
        XEvent ev;
        if (!wait_event(PropertyNotify, &ev, 5000)) { printf("timeout\n"); return 3; }
        XSetSelectionOwner(dpy, sel, win, ev.xproperty.time);
        if (XGetSelectionOwner(dpy, sel) != win) { printf("refused\n"); return 2; }
        printf("owned\n");
        fflush(stdout);
        sleep((unsigned)atoi(argv[3]));
    } else if (!strcmp(mode, "drag") && argc == 6) {
        return drag_owner(atom(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    } else if (!strcmp(mode, "reuse") && argc == 5) {
        return reuse_requestor(atom(argv[2]), atom(argv[3]), atom(argv[4]));
    } else if (!strcmp(mode, "incr") && argc == 5) {
        return incr_requestor(atom(argv[2]), atom(argv[3]), argv[4]);
    } else {
        fprintf(stderr, "probe: bad arguments\n");
        return 64;
    }
    fflush(stdout);
    XCloseDisplay(dpy);
    return 0;
}
"""#
}

extension Data {
    init?(hexString: String) {
        var data = Data(capacity: hexString.utf8.count / 2)
        var high: UInt8?
        for character in hexString.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let value = high {
                data.append(value << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { return nil }
        self = data
    }
}
