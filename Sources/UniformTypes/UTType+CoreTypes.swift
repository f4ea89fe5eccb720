// Constants named as in Apple's UTCoreTypes.h, for every row of the built-in table Apple names,
// then the few bridge types an X clipboard needs. All are `let`s: built once, Sendable.

extension UTType {
    // Roots and file-system types.
    /// `public.item`: the root of the physical hierarchy.
    public static let item = UTType(declared: "public.item")
    /// `public.content`: the root of the functional hierarchy.
    public static let content = UTType(declared: "public.content")
    /// `public.composite-content`: documents mixing several kinds of content.
    public static let compositeContent = UTType(declared: "public.composite-content")
    /// `public.data`: any byte stream; `application/octet-stream`.
    public static let data = UTType(declared: "public.data")
    /// `public.directory`.
    public static let directory = UTType(declared: "public.directory")
    /// `public.folder`: a directory a user sees as a folder.
    public static let folder = UTType(declared: "public.folder")
    /// `public.volume`.
    public static let volume = UTType(declared: "public.volume")
    /// `public.symlink`.
    public static let symbolicLink = UTType(declared: "public.symlink")
    /// `com.apple.resolvable`: items that resolve to another item.
    public static let resolvable = UTType(declared: "com.apple.resolvable")
    /// `com.apple.package`: a directory presented as one file.
    public static let package = UTType(declared: "com.apple.package")
    /// `public.executable`.
    public static let executable = UTType(declared: "public.executable")
    /// `public.unix-executable`.
    public static let unixExecutable = UTType(declared: "public.unix-executable")
    /// `com.microsoft.windows-executable` (`.exe`).
    public static let exe = UTType(declared: "com.microsoft.windows-executable")
    /// `public.archive`.
    public static let archive = UTType(declared: "public.archive")
    /// `public.message`.
    public static let message = UTType(declared: "public.message")
    /// `public.contact`.
    public static let contact = UTType(declared: "public.contact")
    /// `public.bookmark`.
    public static let bookmark = UTType(declared: "public.bookmark")
    /// `com.apple.bookmark`: URL bookmark data.
    public static let urlBookmarkData = UTType(declared: "com.apple.bookmark")
    /// `public.disk-image`.
    public static let diskImage = UTType(declared: "public.disk-image")
    /// `com.apple.live-photo`.
    public static let livePhoto = UTType(declared: "com.apple.live-photo")

    // URLs.
    /// `public.url`: canonical bytes are the UTF-8 URL; on X `text/uri-list`, `text/x-moz-url`.
    public static let url = UTType(declared: "public.url")
    /// `public.file-url`: canonical bytes are the UTF-8 `file://` URL; on X also `x-special/gnome-copied-files`.
    public static let fileURL = UTType(declared: "public.file-url")
    /// `public.url-name`: the title that goes with a `public.url`.
    public static let urlName = UTType(declared: "public.url-name")
    /// `com.apple.internet-location`.
    public static let internetLocation = UTType(declared: "com.apple.internet-location")
    /// `com.microsoft.internet-shortcut` (`.url` files).
    public static let internetShortcut = UTType(declared: "com.microsoft.internet-shortcut")

    // Text.
    /// `public.text`: any text, marked up or not.
    public static let text = UTType(declared: "public.text")
    /// `public.plain-text`: text of unspecified encoding; `text/plain` and the ICCCM text atoms.
    public static let plainText = UTType(declared: "public.plain-text")
    /// `public.utf8-plain-text`: `UTF8_STRING`, `text/plain;charset=utf-8`.
    public static let utf8PlainText = UTType(declared: "public.utf8-plain-text")
    /// `public.utf16-plain-text`: native byte order, optional BOM.
    public static let utf16PlainText = UTType(declared: "public.utf16-plain-text")
    /// `public.utf16-external-plain-text`: BOM, else big-endian.
    public static let utf16ExternalPlainText = UTType(declared: "public.utf16-external-plain-text")
    /// `public.delimited-values-text`.
    public static let delimitedText = UTType(declared: "public.delimited-values-text")
    /// `public.comma-separated-values-text` (`text/csv`).
    public static let commaSeparatedText = UTType(declared: "public.comma-separated-values-text")
    /// `public.tab-separated-values-text`.
    public static let tabSeparatedText = UTType(declared: "public.tab-separated-values-text")
    /// `public.utf8-tab-separated-values-text`.
    public static let utf8TabSeparatedText = UTType(declared: "public.utf8-tab-separated-values-text")
    /// `public.rtf`.
    public static let rtf = UTType(declared: "public.rtf")
    /// `com.apple.rtfd`.
    public static let rtfd = UTType(declared: "com.apple.rtfd")
    /// `com.apple.flat-rtfd`.
    public static let flatRTFD = UTType(declared: "com.apple.flat-rtfd")
    /// `public.html`: text, but deliberately not plain text.
    public static let html = UTType(declared: "public.html")
    /// `public.xml`.
    public static let xml = UTType(declared: "public.xml")
    /// `public.json`.
    public static let json = UTType(declared: "public.json")
    /// `public.yaml`.
    public static let yaml = UTType(declared: "public.yaml")
    /// `net.daringfireball.markdown`.
    public static let markdown = UTType(declared: "net.daringfireball.markdown")
    /// `com.apple.webarchive`.
    public static let webArchive = UTType(declared: "com.apple.webarchive")

    // Source code.
    /// `public.source-code`.
    public static let sourceCode = UTType(declared: "public.source-code")
    /// `public.script`.
    public static let script = UTType(declared: "public.script")
    /// `public.shell-script`.
    public static let shellScript = UTType(declared: "public.shell-script")
    /// `public.python-script`.
    public static let pythonScript = UTType(declared: "public.python-script")
    /// `public.c-source`.
    public static let cSource = UTType(declared: "public.c-source")
    /// `public.c-header`.
    public static let cHeader = UTType(declared: "public.c-header")
    /// `public.c-plus-plus-source`.
    public static let cPlusPlusSource = UTType(declared: "public.c-plus-plus-source")
    /// `public.c-plus-plus-header`.
    public static let cPlusPlusHeader = UTType(declared: "public.c-plus-plus-header")
    /// `public.objective-c-source`.
    public static let objectiveCSource = UTType(declared: "public.objective-c-source")
    /// `public.swift-source`.
    public static let swiftSource = UTType(declared: "public.swift-source")
    /// `com.netscape.javascript-source`.
    public static let javaScript = UTType(declared: "com.netscape.javascript-source")
    /// `com.apple.property-list`.
    public static let propertyList = UTType(declared: "com.apple.property-list")
    /// `com.apple.xml-property-list`.
    public static let xmlPropertyList = UTType(declared: "com.apple.xml-property-list")
    /// `com.apple.binary-property-list`.
    public static let binaryPropertyList = UTType(declared: "com.apple.binary-property-list")

    // Contacts, calendars, messages.
    /// `public.vcard`.
    public static let vCard = UTType(declared: "public.vcard")
    /// `public.calendar-event`.
    public static let calendarEvent = UTType(declared: "public.calendar-event")
    /// `public.email-message`.
    public static let emailMessage = UTType(declared: "public.email-message")
    /// `public.log`.
    public static let log = UTType(declared: "public.log")

    // Images.
    /// `public.image`.
    public static let image = UTType(declared: "public.image")
    /// `public.png`.
    public static let png = UTType(declared: "public.png")
    /// `public.jpeg`.
    public static let jpeg = UTType(declared: "public.jpeg")
    /// `public.tiff`.
    public static let tiff = UTType(declared: "public.tiff")
    /// `com.compuserve.gif`.
    public static let gif = UTType(declared: "com.compuserve.gif")
    /// `com.microsoft.bmp`.
    public static let bmp = UTType(declared: "com.microsoft.bmp")
    /// `com.microsoft.ico`.
    public static let ico = UTType(declared: "com.microsoft.ico")
    /// `com.apple.icns`.
    public static let icns = UTType(declared: "com.apple.icns")
    /// `public.svg-image`.
    public static let svg = UTType(declared: "public.svg-image")
    /// `org.webmproject.webp`.
    public static let webP = UTType(declared: "org.webmproject.webp")
    /// `public.heic`.
    public static let heic = UTType(declared: "public.heic")
    /// `public.heif`.
    public static let heif = UTType(declared: "public.heif")
    /// `public.camera-raw-image`.
    public static let rawImage = UTType(declared: "public.camera-raw-image")

    // Documents.
    /// `com.adobe.pdf`.
    public static let pdf = UTType(declared: "com.adobe.pdf")
    /// `public.spreadsheet`.
    public static let spreadsheet = UTType(declared: "public.spreadsheet")
    /// `public.presentation`.
    public static let presentation = UTType(declared: "public.presentation")
    /// `org.idpf.epub-container`.
    public static let epub = UTType(declared: "org.idpf.epub-container")

    // Audio and video.
    /// `public.audiovisual-content`.
    public static let audiovisualContent = UTType(declared: "public.audiovisual-content")
    /// `public.audio`.
    public static let audio = UTType(declared: "public.audio")
    /// `public.movie`.
    public static let movie = UTType(declared: "public.movie")
    /// `public.video`.
    public static let video = UTType(declared: "public.video")
    /// `public.mp3`.
    public static let mp3 = UTType(declared: "public.mp3")
    /// `public.mpeg-4`.
    public static let mpeg4Movie = UTType(declared: "public.mpeg-4")
    /// `public.mpeg-4-audio`.
    public static let mpeg4Audio = UTType(declared: "public.mpeg-4-audio")
    /// `com.microsoft.waveform-audio`.
    public static let wav = UTType(declared: "com.microsoft.waveform-audio")
    /// `public.aiff-audio`.
    public static let aiff = UTType(declared: "public.aiff-audio")
    /// `public.midi-audio`.
    public static let midi = UTType(declared: "public.midi-audio")
    /// `com.apple.quicktime-movie`.
    public static let quickTimeMovie = UTType(declared: "com.apple.quicktime-movie")
    /// `public.mpeg`.
    public static let mpeg = UTType(declared: "public.mpeg")
    /// `public.avi`.
    public static let avi = UTType(declared: "public.avi")

    // Archives and fonts.
    /// `public.zip-archive`.
    public static let zip = UTType(declared: "public.zip-archive")
    /// `org.gnu.gnu-zip-archive`.
    public static let gzip = UTType(declared: "org.gnu.gnu-zip-archive")
    /// `public.bzip2-archive`.
    public static let bz2 = UTType(declared: "public.bzip2-archive")
    /// `public.font`.
    public static let font = UTType(declared: "public.font")

    // Bridge types (not Apple's names).
    /// `org.nspasteboard.ConcealedType`: the password-manager marker; on X `x-kde-passwordManagerHint` = `secret`.
    public static let concealed = UTType(declared: "org.nspasteboard.ConcealedType")
    /// `org.x.color`: `application/x-color`, four native-endian UInt16 R, G, B, A (see `RGBA16Color`).
    public static let x11Color = UTType(declared: "org.x.color")
    /// `org.x.pixmap`: the `PIXMAP` target, a server-side pixmap ID rather than image bytes.
    public static let x11Pixmap = UTType(declared: "org.x.pixmap")
}
