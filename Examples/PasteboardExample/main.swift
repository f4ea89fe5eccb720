// The X clipboard the way UIKit code uses UIPasteboard: `pasteboard-example copy some text`,
// `pasteboard-example copy --secret hunter2`, `pasteboard-example` (paste), `… watch`.
import FoundationEssentials
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
    // Returning from main hands CLIPBOARD to a running clipboard manager (never a secret).
case "watch":
    for await change in pasteboard.changes.prefix(3) {
        print("#\(change.changeCount) \(change.kind.rawValue): \(pasteboard.types)")
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
