#ifndef CX11_H
#define CX11_H

#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xfixes.h>

// XFixes events have no member in the XEvent union; the engine reinterprets the bytes.
_Static_assert(sizeof(XFixesSelectionNotifyEvent) <= sizeof(XEvent), "XFixes event must fit in XEvent");

#endif
