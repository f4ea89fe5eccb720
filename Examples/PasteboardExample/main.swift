// The X clipboard the way UIKit code uses UIPasteboard: `pasteboard-example copy some text`,
// `pasteboard-example copy --secret hunter2`, `pasteboard-example` (paste), `… watch`.
import FoundationEssentials
import Glibc
import UniformTypes
import X11Pasteboard

let pasteboard = Pasteboard.general
let arguments = Array(CommandLine.arguments.dropFirst())

switch arguments.first {
case "copy":
    let text = arguments.dropFirst().filter { $0 != "--secret" }.joined(separator: " ")
    if arguments.contains("--secret") {
        // The concealed type keeps a password out of clipboard managers and histories.
        pasteboard.setItems([[UTType.utf8PlainText.identifier: text, UTType.concealed.identifier: Data()]])
    } else {
        pasteboard.string = text
    }
    print("copied; changeCount \(pasteboard.changeCount)")
    // Returning from main hands CLIPBOARD to a running clipboard manager (never a secret). On X
    // the content lives in this process: with no manager (`xpb daemon`) it is gone on exit.
    print("(kept after this program exits only if a clipboard manager such as `xpb daemon` runs)")
case "watch":
    var seen = 0
    for await change in pasteboard.changes.prefix(3) {
        print("#\(change.changeCount) \(change.kind.rawValue): \(pasteboard.types)")
        fflush(nil)  // one line per change as it happens, into a pipe or a file too
        seen += 1
    }
    // The stream also ends when the X server goes away; the program goes on.
    if seen < 3 {
        do {
            _ = try await pasteboard.async.string
        } catch {
            print("the X server went away: \(error)")
        }
    }
default:
    if pasteboard.hasStrings, let text = pasteboard.string {
        print(text)
    } else if pasteboard.hasImages, let png = pasteboard.image {
        print("an image of \(png.count) bytes")
    } else {
        print("nothing to paste (types: \(pasteboard.types))")
    }
}
