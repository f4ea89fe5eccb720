/// One declared type: what Apple's `UTExportedTypeDeclarations` entries hold, reduced to what a
/// clipboard translator needs.
struct TypeDeclaration: Sendable {
    let identifier: String
    let description: String
    /// Direct parents in declared order; the order matters only for inherited properties (types.md §1.5).
    let conformsTo: [String]
    /// Preferred first, as Apple's `preferredMIMEType` takes the first.
    let mimeTypes: [String]
    let extensions: [String]
    /// X selection target atoms that are not MIME names (MIME-named atoms resolve through `mimeTypes`).
    let atoms: [String]
}

private func declare(
    _ identifier: String, _ description: String, conformsTo: [String] = [],
    mime: [String] = [], ext: [String] = [], atoms: [String] = []
) -> TypeDeclaration {
    TypeDeclaration(
        identifier: identifier, description: description, conformsTo: conformsTo,
        mimeTypes: mime, extensions: ext, atoms: atoms)
}

/// The built-in type table. Parents and tags follow the macOS 13 CoreTypes dump (types.md §2);
/// rows marked "bridge" add what Apple does not declare but an X clipboard needs. Order matters:
/// when several types share a tag, the first row that satisfies the requested conformance wins,
/// so more general or more common types come first.
let systemTypeDeclarations: [TypeDeclaration] = [
    // Roots.
    declare("public.item", "item"),
    declare("public.content", "content"),
    declare("public.composite-content", "composite content", conformsTo: ["public.content"]),
    declare("public.data", "data", conformsTo: ["public.item"], mime: ["application/octet-stream"]),
    declare("public.directory", "directory", conformsTo: ["public.item"]),
    declare("public.folder", "folder", conformsTo: ["public.directory"]),
    declare("public.volume", "volume", conformsTo: ["public.folder"]),
    declare("public.symlink", "symbolic link", conformsTo: ["public.item", "com.apple.resolvable"]),
    declare("com.apple.resolvable", "resolvable"),
    declare("com.apple.package", "package", conformsTo: ["public.directory"]),
    declare("public.executable", "executable"),
    declare("public.unix-executable", "Unix executable", conformsTo: ["public.data", "public.executable"]),
    declare("com.microsoft.windows-executable", "Windows executable", conformsTo: ["public.data", "public.executable"], ext: ["exe"]),
    declare("public.archive", "archive"),
    declare("public.message", "message"),
    declare("public.contact", "contact"),
    declare("public.bookmark", "bookmark"),
    declare("com.apple.bookmark", "URL bookmark data", conformsTo: ["public.data", "com.apple.resolvable"]),
    declare("public.disk-image", "disk image"),
    declare("com.apple.live-photo", "Live Photo"),

    // URLs. Apple gives public.url no MIME tag; the X names are bridge tags (types.md §4.9).
    declare("public.url", "URL", conformsTo: ["public.data"], mime: ["text/uri-list", "text/x-moz-url"], atoms: ["_NETSCAPE_URL"]),
    declare("public.file-url", "file URL", conformsTo: ["public.url"], mime: ["x-special/gnome-copied-files"]),
    declare("public.url-name", "URL name", conformsTo: ["public.data"]),
    declare("public.stored-url", "stored URL", conformsTo: ["public.data"]),
    declare("com.apple.internet-location", "internet location", conformsTo: ["public.stored-url", "public.data"]),
    declare("com.apple.web-internet-location", "web internet location", conformsTo: ["com.apple.internet-location"], ext: ["webloc"]),
    declare("com.microsoft.internet-shortcut", "internet shortcut", conformsTo: ["public.stored-url", "public.data"], ext: ["url"]),

    // Text. The ICCCM text atoms carry text whose encoding the atom (or reply type) names, so they
    // belong to plain text in general; only UTF8_STRING promises UTF-8.
    declare("public.text", "text", conformsTo: ["public.data", "public.content"]),
    declare("public.plain-text", "plain text", conformsTo: ["public.text"], mime: ["text/plain"], ext: ["txt", "text"],
            atoms: ["STRING", "TEXT", "COMPOUND_TEXT", "C_STRING"]),
    declare("public.utf8-plain-text", "UTF-8 plain text", conformsTo: ["public.plain-text"],
            mime: ["text/plain;charset=utf-8", "text/plain;charset=\"utf-8\""], atoms: ["UTF8_STRING"]),
    declare("public.utf16-plain-text", "UTF-16 plain text", conformsTo: ["public.plain-text"],
            mime: ["text/plain;charset=utf-16", "text/plain;charset=\"utf-16\""], atoms: ["ISO10646-1"]),
    declare("public.utf16-external-plain-text", "UTF-16 plain text with byte-order mark", conformsTo: ["public.plain-text"]),
    declare("com.apple.traditional-mac-plain-text", "Mac OS Roman plain text", conformsTo: ["public.plain-text"]),
    declare("public.delimited-values-text", "delimited values text", conformsTo: ["public.text"]),
    declare("public.comma-separated-values-text", "comma-separated values", conformsTo: ["public.plain-text", "public.delimited-values-text"],
            mime: ["text/csv", "text/comma-separated-values"], ext: ["csv"]),
    declare("public.tab-separated-values-text", "tab-separated values", conformsTo: ["public.plain-text", "public.delimited-values-text"],
            mime: ["text/tab-separated-values"], ext: ["tsv"]),
    declare("public.utf8-tab-separated-values-text", "UTF-8 tab-separated values",
            conformsTo: ["public.tab-separated-values-text", "public.utf8-plain-text"]),
    // application/rtf (fdo canonical) and text/richtext (LibreOffice) are bridge tags (types.md §4.6).
    declare("public.rtf", "rich text (RTF)", conformsTo: ["public.text"], mime: ["text/rtf", "application/rtf", "text/richtext"], ext: ["rtf"]),
    declare("com.apple.rtfd", "rich text with attachments (RTFD)", conformsTo: ["com.apple.package", "public.composite-content"], ext: ["rtfd"]),
    declare("com.apple.flat-rtfd", "flat RTFD", conformsTo: ["public.data", "public.composite-content"]),
    declare("public.html", "HTML", conformsTo: ["public.text"], mime: ["text/html"], ext: ["html", "htm", "shtml", "shtm"]),
    declare("public.xml", "XML", conformsTo: ["public.text"], mime: ["application/xml", "text/xml"], ext: ["xml"]),
    declare("public.xhtml", "XHTML", conformsTo: ["public.xml"], mime: ["application/xhtml+xml"], ext: ["xhtml", "xhtm", "xht"]),
    declare("public.json", "JSON", conformsTo: ["public.text"], mime: ["application/json"], ext: ["json"]),
    declare("public.yaml", "YAML", conformsTo: ["public.text"], mime: ["application/x-yaml", "application/yaml"], ext: ["yml", "yaml"]),
    declare("public.css", "CSS style sheet", conformsTo: ["public.text"], mime: ["text/css"], ext: ["css"]),
    declare("net.daringfireball.markdown", "Markdown", conformsTo: ["public.utf8-plain-text"],
            mime: ["text/markdown", "text/x-markdown"], ext: ["md", "markdown"]),
    declare("com.apple.webarchive", "web archive", conformsTo: ["public.data", "public.composite-content"],
            mime: ["application/x-webarchive"], ext: ["webarchive"]),

    // Source code.
    declare("public.source-code", "source code", conformsTo: ["public.plain-text"]),
    declare("public.script", "script", conformsTo: ["public.source-code"]),
    declare("public.shell-script", "shell script", conformsTo: ["public.script"], ext: ["sh"]),
    declare("public.python-script", "Python script", conformsTo: ["public.shell-script"], mime: ["text/x-python-script"], ext: ["py"]),
    declare("public.c-source", "C source", conformsTo: ["public.source-code"], ext: ["c"]),
    declare("public.c-header", "C header", conformsTo: ["public.source-code"], ext: ["h"]),
    declare("public.c-plus-plus-source", "C++ source", conformsTo: ["public.source-code"], ext: ["cp", "cpp", "c++", "cc", "cxx"]),
    declare("public.c-plus-plus-header", "C++ header", conformsTo: ["public.source-code"], ext: ["hpp", "h++", "hxx", "hh"]),
    declare("public.objective-c-source", "Objective-C source", conformsTo: ["public.source-code"], ext: ["m"]),
    declare("public.swift-source", "Swift source", conformsTo: ["public.source-code"], ext: ["swift"]),
    declare("com.netscape.javascript-source", "JavaScript", conformsTo: ["public.script", "public.executable"],
            mime: ["text/javascript", "application/javascript"], ext: ["js", "jscript", "javascript", "mjs"]),
    declare("com.apple.property-list", "property list", conformsTo: ["public.data"], ext: ["plist"]),
    declare("com.apple.xml-property-list", "XML property list", conformsTo: ["public.xml", "com.apple.property-list"], ext: ["plist"]),
    declare("com.apple.binary-property-list", "binary property list", conformsTo: ["com.apple.property-list"], ext: ["plist"]),

    // Contacts, calendars, messages.
    declare("public.vcard", "vCard", conformsTo: ["public.text", "public.contact"],
            mime: ["text/vcard", "text/directory", "text/x-vcard"], ext: ["vcf", "vcard"]),
    declare("public.calendar-event", "calendar event"),
    declare("com.apple.ical.ics", "iCalendar", conformsTo: ["public.text", "public.item", "public.calendar-event"],
            mime: ["text/calendar"], ext: ["ics"]),
    declare("public.email-message", "email message", conformsTo: ["public.message"]),
    declare("public.log", "log", conformsTo: ["public.item"]),

    // Images. The extra BMP/ICO MIME spellings are what gdk-pixbuf offers (types.md §3.2); bridge tags.
    declare("public.image", "image", conformsTo: ["public.data", "public.content"]),
    declare("public.png", "PNG image", conformsTo: ["public.image"], mime: ["image/png", "application/x-qt-image"], ext: ["png"]),
    declare("public.jpeg", "JPEG image", conformsTo: ["public.image"], mime: ["image/jpeg", "image/jpg"], ext: ["jpeg", "jpg", "jpe"]),
    declare("public.tiff", "TIFF image", conformsTo: ["public.image"], mime: ["image/tiff"], ext: ["tiff", "tif"]),
    declare("com.compuserve.gif", "GIF image", conformsTo: ["public.image"], mime: ["image/gif"], ext: ["gif"]),
    declare("com.microsoft.bmp", "BMP image", conformsTo: ["public.image"], mime: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"], ext: ["bmp", "dib"]),
    declare("com.microsoft.ico", "Windows icon image", conformsTo: ["public.image"], mime: ["image/vnd.microsoft.icon", "image/x-icon"], ext: ["ico"]),
    declare("com.apple.icns", "Apple icon image", conformsTo: ["public.image"], ext: ["icns"]),
    declare("public.svg-image", "SVG image", conformsTo: ["public.image", "public.xml"], mime: ["image/svg+xml"], ext: ["svg", "svgz"]),
    declare("org.webmproject.webp", "WebP image", conformsTo: ["public.image"], mime: ["image/webp"], ext: ["webp"]),
    declare("public.heif-standard", "HEIF standard image", conformsTo: ["public.image"]),
    declare("public.heic", "HEIC image", conformsTo: ["public.heif-standard"], mime: ["image/heic"], ext: ["heic"]),
    declare("public.heif", "HEIF image", conformsTo: ["public.heif-standard"], mime: ["image/heif"], ext: ["heif", "hif"]),
    declare("public.jpeg-2000", "JPEG 2000 image", conformsTo: ["public.image"], mime: ["image/jp2"], ext: ["jp2", "jpf", "jpx", "j2k", "j2c"]),
    declare("public.camera-raw-image", "camera raw image", conformsTo: ["public.image"]),
    declare("com.adobe.photoshop-image", "Photoshop image", conformsTo: ["public.image"],
            mime: ["image/vnd.adobe.photoshop", "image/photoshop", "image/x-photoshop", "image/psd", "application/photoshop"], ext: ["psd"]),
    declare("com.apple.pict", "PICT image", conformsTo: ["public.image"], mime: ["image/pict", "image/x-pict", "image/x-macpict"], ext: ["pict", "pct", "pic"]),

    // Documents.
    declare("com.adobe.pdf", "PDF document", conformsTo: ["public.data", "public.composite-content"], mime: ["application/pdf"], ext: ["pdf"]),
    declare("com.adobe.postscript", "PostScript document", conformsTo: ["public.data", "public.composite-content"],
            mime: ["application/postscript"], ext: ["ps"]),
    declare("public.spreadsheet", "spreadsheet", conformsTo: ["public.content"]),
    declare("public.presentation", "presentation", conformsTo: ["public.composite-content"]),
    declare("com.microsoft.word.doc", "Word document", conformsTo: ["public.data", "public.composite-content"], mime: ["application/msword"], ext: ["doc"]),
    declare("com.microsoft.excel.xls", "Excel spreadsheet", conformsTo: ["public.data", "public.spreadsheet"], mime: ["application/vnd.ms-excel"], ext: ["xls"]),
    declare("com.microsoft.powerpoint.ppt", "PowerPoint presentation", conformsTo: ["public.data", "public.presentation"],
            mime: ["application/vnd.ms-powerpoint"], ext: ["ppt"]),
    declare("org.openxmlformats.openxml", "Office Open XML document", conformsTo: ["public.zip-archive"]),
    declare("org.openxmlformats.wordprocessingml.document", "Word document (OOXML)", conformsTo: ["org.openxmlformats.openxml", "public.composite-content"],
            mime: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"], ext: ["docx"]),
    declare("org.openxmlformats.spreadsheetml.sheet", "Excel spreadsheet (OOXML)", conformsTo: ["org.openxmlformats.openxml", "public.spreadsheet"],
            mime: ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"], ext: ["xlsx"]),
    declare("org.openxmlformats.presentationml.presentation", "PowerPoint presentation (OOXML)", conformsTo: ["org.openxmlformats.openxml", "public.presentation"],
            mime: ["application/vnd.openxmlformats-officedocument.presentationml.presentation"], ext: ["pptx"]),
    declare("org.oasis-open.opendocument", "OpenDocument", conformsTo: ["public.zip-archive"]),
    declare("org.oasis-open.opendocument.text", "OpenDocument text", conformsTo: ["org.oasis-open.opendocument", "public.composite-content"],
            mime: ["application/vnd.oasis.opendocument.text"], ext: ["odt"]),
    declare("org.oasis-open.opendocument.spreadsheet", "OpenDocument spreadsheet", conformsTo: ["org.oasis-open.opendocument", "public.spreadsheet"],
            mime: ["application/vnd.oasis.opendocument.spreadsheet"], ext: ["ods"]),
    declare("org.oasis-open.opendocument.presentation", "OpenDocument presentation", conformsTo: ["org.oasis-open.opendocument", "public.presentation"],
            mime: ["application/vnd.oasis.opendocument.presentation"], ext: ["odp"]),
    declare("org.idpf.epub-container", "EPUB book", conformsTo: ["public.zip-archive", "public.composite-content"],
            mime: ["application/epub+zip"], ext: ["epub"]),

    // Audio and video.
    declare("public.audiovisual-content", "audiovisual content", conformsTo: ["public.data", "public.content"]),
    declare("public.audio", "audio", conformsTo: ["public.audiovisual-content"]),
    declare("public.movie", "movie", conformsTo: ["public.audiovisual-content"]),
    declare("public.video", "video", conformsTo: ["public.movie"]),
    declare("public.mp3", "MP3 audio", conformsTo: ["public.audio"],
            mime: ["audio/mpeg", "audio/mpeg3", "audio/mpg", "audio/mp3", "audio/x-mpeg", "audio/x-mpeg3", "audio/x-mpg", "audio/x-mp3"], ext: ["mp3", "mpga"]),
    declare("public.mpeg-4", "MPEG-4 movie", conformsTo: ["public.movie"], mime: ["video/mp4", "video/mp4v-es"], ext: ["mp4", "mpg4"]),
    declare("public.mpeg-4-audio", "MPEG-4 audio", conformsTo: ["public.audio"], mime: ["audio/mp4", "audio/mp4a-latm"], ext: ["mp4", "mpg4"]),
    declare("com.apple.m4a-audio", "AAC audio (M4A)", conformsTo: ["public.mpeg-4-audio"], mime: ["audio/x-m4a"], ext: ["m4a"]),
    declare("com.microsoft.waveform-audio", "WAVE audio", conformsTo: ["public.audio"],
            mime: ["audio/vnd.wave", "audio/wav", "audio/wave", "audio/x-wav"], ext: ["wav", "wave", "bwf"]),
    declare("public.aifc-audio", "AIFF-C audio", conformsTo: ["public.audio"], ext: ["aifc"]),
    declare("public.aiff-audio", "AIFF audio", conformsTo: ["public.aifc-audio"], mime: ["audio/aiff", "audio/x-aiff"], ext: ["aiff", "aif"]),
    declare("public.midi-audio", "MIDI audio", conformsTo: ["public.audio"], mime: ["audio/midi", "audio/x-midi"], ext: ["midi", "mid", "smf", "kar"]),
    declare("org.xiph.flac", "FLAC audio", conformsTo: ["public.audio"], mime: ["audio/flac"], ext: ["flac"]),
    declare("com.apple.quicktime-movie", "QuickTime movie", conformsTo: ["public.movie"], mime: ["video/quicktime"], ext: ["mov", "qt"]),
    declare("public.mpeg", "MPEG movie", conformsTo: ["public.movie"], mime: ["video/mpeg", "video/mpg", "video/x-mpeg", "video/x-mpg"],
            ext: ["mpg", "mpeg", "mpe", "m75", "m15"]),
    declare("public.avi", "AVI movie", conformsTo: ["public.movie"], mime: ["video/avi", "video/msvideo", "video/x-msvideo"], ext: ["avi", "vfw"]),
    declare("org.webmproject.webm", "WebM movie", conformsTo: ["public.movie"], mime: ["video/webm", "audio/webm"], ext: ["webm"]),

    // Archives and fonts.
    declare("com.pkware.zip-archive", "ZIP archive", conformsTo: ["public.data", "public.archive"]),
    declare("public.zip-archive", "ZIP archive", conformsTo: ["com.pkware.zip-archive"], mime: ["application/zip", "application/x-zip-compressed"], ext: ["zip"]),
    declare("org.gnu.gnu-zip-archive", "gzip archive", conformsTo: ["public.data", "public.archive"], mime: ["application/x-gzip", "application/gzip"], ext: ["gz", "gzip"]),
    declare("org.gnu.gnu-tar-archive", "GNU tar archive", conformsTo: ["public.data", "public.archive"], mime: ["application/x-gtar"], ext: ["gtar"]),
    declare("public.tar-archive", "tar archive", conformsTo: ["org.gnu.gnu-tar-archive"], mime: ["application/x-tar", "application/tar"], ext: ["tar"]),
    declare("public.bzip2-archive", "bzip2 archive", conformsTo: ["public.data", "public.archive"],
            mime: ["application/x-bzip2", "application/x-bzip", "application/bzip2", "application/bzip", "application/x-bz2"], ext: ["bz2", "bz"]),
    declare("public.font", "font", conformsTo: ["public.data"]),
    declare("public.truetype-font", "TrueType font", conformsTo: ["public.font"]),
    declare("public.truetype-ttf-font", "TrueType font (TTF)", conformsTo: ["public.truetype-font"], mime: ["font/ttf"], ext: ["ttf"]),
    declare("public.opentype-font", "OpenType font", conformsTo: ["public.font"], mime: ["font/otf"], ext: ["otf"]),

    // Apple pasteboard-private types: carried opaquely, never converted.
    declare("com.apple.cocoa.pasteboard.color", "Cocoa color", conformsTo: ["public.data"]),
    declare("com.apple.cocoa.pasteboard.sound", "Cocoa sound", conformsTo: ["public.data"]),
    declare("com.apple.cocoa.pasteboard.character-formatting", "Cocoa character formatting", conformsTo: ["public.data"]),
    declare("com.apple.cocoa.pasteboard.paragraph-formatting", "Cocoa paragraph formatting", conformsTo: ["public.data"]),
    declare("com.apple.cocoa.pasteboard.multiple-text-selection", "Cocoa multiple text selection", conformsTo: ["public.data"]),
    declare("com.apple.pasteboard.promised-file-url", "promised file URL"),
    declare("com.apple.pasteboard.promised-file-content-type", "promised file content type"),

    // Bridge: conventions and X-only representations (types.md §3.2, §4.5, §4.7, §4.8).
    declare("org.nspasteboard.ConcealedType", "concealed (password) content marker", conformsTo: ["public.data"],
            atoms: ["x-kde-passwordManagerHint"]),
    declare("org.chromium.web-custom-data", "Chromium web custom data", conformsTo: ["public.data"], mime: ["chromium/x-web-custom-data"]),
    declare("org.chromium.source-url", "Chromium source URL", conformsTo: ["public.data"], mime: ["chromium/x-source-url"]),
    declare("org.x.color", "RGBA color (4 × 16-bit)", conformsTo: ["public.data"], mime: ["application/x-color"]),
    declare("org.x.pixmap", "X pixmap ID", conformsTo: ["public.data"], atoms: ["PIXMAP"]),
]
