#!/usr/bin/python3
"""Real clipboard owners for the clipboard manager tests (run with /usr/bin/python3).

  qt TEXT HTML           Qt5 copies HTML and text, quits normally after 300 ms (Qt sends
                         SAVE_TARGETS on exit when a manager runs).
  gtk-image OUT          GTK3 copies a 64x48 image with set_can_store, quits its main loop (GTK
                         stores on exit); writes to OUT the PNG GTK serves for image/png.
  xlib [options] TARGET=FILE...
                         python-xlib owner of CLIPBOARD serving exactly these targets (plus
                         TARGETS, TIMESTAMP, MULTIPLE); prints "owning" once it owns.
     --exit-after-read   exit (no hand-off) once every target was converted at least once
     --save [TARGET...]  once every target was read, send SAVE_TARGETS (with these targets in the
                         property, or none for "all"), serve until answered, print
                         "saved" or "refused", exit
     --linger SECONDS    exit after SECONDS whatever happened
"""
import os
import select
import sys
import time


def qt(text, html):
    from PyQt5.QtCore import QMimeData, QTimer
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["clipboard-test"])
    data = QMimeData()
    data.setHtml(html)
    data.setText(text)
    app.clipboard().setMimeData(data)
    print("copied", flush=True)
    QTimer.singleShot(300, app.quit)
    app.exec_()
    del app


def gtk_image(out):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    gi.require_version("GdkPixbuf", "2.0")
    from gi.repository import GdkPixbuf, Gdk, GLib, Gtk
    pixbuf = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, False, 8, 64, 48)
    pixbuf.fill(0x336699FF)
    # What GTK serves for image/png (gtk_selection_data_set_pixbuf: compression 2).
    ok, served = pixbuf.save_to_bufferv("png", ["compression"], ["2"])
    with open(out, "wb") as f:
        f.write(served)
    clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
    clipboard.set_image(pixbuf)
    clipboard.set_can_store(None)
    print("copied", flush=True)
    GLib.timeout_add(300, Gtk.main_quit)
    Gtk.main()


def xlib(args):
    from Xlib import X, Xatom, display
    from Xlib.protocol import event

    exit_after_read = False
    save = None
    linger = None
    served = {}
    while args:
        arg = args.pop(0)
        if arg == "--exit-after-read":
            exit_after_read = True
        elif arg == "--save":
            save = []
            while args and not args[0].startswith("--") and "=" not in args[0]:
                save.append(args.pop(0))
        elif arg == "--linger":
            linger = float(args.pop(0))
        else:
            target, path = arg.split("=", 1)
            with open(path, "rb") as f:
                served[target] = f.read()

    d = display.Display()
    atom = d.intern_atom
    w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
    clipboard, manager = atom("CLIPBOARD"), atom("CLIPBOARD_MANAGER")
    targets_atom, timestamp, multiple = atom("TARGETS"), atom("TIMESTAMP"), atom("MULTIPLE")
    save_targets, atom_pair = atom("SAVE_TARGETS"), atom("ATOM_PAIR")
    by_atom = {atom(name): (name, data) for name, data in served.items()}

    w.change_property(atom("_TEST_TIME"), Xatom.STRING, 8, b"")
    d.flush()
    while True:
        e = d.next_event()
        if e.type == X.PropertyNotify:
            now = e.time
            break
    w.set_selection_owner(clipboard, now)
    d.flush()
    print("owning", flush=True)

    unread = set(served)
    asked = False
    started = time.monotonic()

    def convert(requestor, target, prop):
        if target == targets_atom:
            requestor.change_property(prop, Xatom.ATOM, 32, [targets_atom, timestamp, multiple] + list(by_atom))
            return True
        if target == timestamp:
            requestor.change_property(prop, Xatom.INTEGER, 32, [now])
            return True
        if target in by_atom:
            name, data = by_atom[target]
            requestor.change_property(prop, target, 8, data)
            unread.discard(name)
            return True
        return False

    while True:
        if linger is not None and time.monotonic() - started > linger:
            return
        if not unread and exit_after_read:
            d.flush()
            return
        if not unread and save is not None and not asked:
            asked = True
            prop = atom("_TEST_SAVE")
            if save:
                w.change_property(prop, Xatom.ATOM, 32, [atom(t) for t in save])
            w.convert_selection(manager, save_targets, prop if save else X.NONE, X.CurrentTime)
            d.flush()
        if d.pending_events() == 0:
            select.select([d.fileno()], [], [], 0.1)
            continue
        e = d.next_event()
        if e.type == X.SelectionRequest:
            requestor = e.requestor
            prop = e.property if e.property != X.NONE else e.target
            ok = False
            if e.target == multiple:
                pairs = requestor.get_full_property(prop, atom_pair)
                values = list(pairs.value) if pairs else []
                for i in range(0, len(values) - 1, 2):
                    if not convert(d.create_resource_object("window", requestor.id), values[i], values[i + 1]):
                        values[i + 1] = X.NONE
                requestor.change_property(prop, atom_pair, 32, values)
                ok = pairs is not None
            else:
                ok = convert(requestor, e.target, prop)
            reply = event.SelectionNotify(
                time=e.time, requestor=requestor, selection=e.selection, target=e.target,
                property=prop if ok else X.NONE)
            requestor.send_event(reply)
            d.flush()
        elif e.type == X.SelectionNotify and e.selection == manager:
            print("saved" if e.property != X.NONE else "refused", flush=True)
            return


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "qt":
        qt(sys.argv[2], sys.argv[3])
    elif mode == "gtk-image":
        gtk_image(sys.argv[2])
    elif mode == "xlib":
        xlib(sys.argv[2:])
    else:
        sys.exit(__doc__)
