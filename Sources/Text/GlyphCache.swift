import Raster

/// A rendered glyph: its coverage mask and where the mask sits relative to the pen position, plus
/// what the compositing needs of the mask made once instead of on every draw.
struct CachedGlyph {
    let mask: CoverageMask
    /// Columns from the (whole-pixel) pen x to the mask's left edge (FreeType's `bitmap_left`).
    let left: Int
    /// Rows from the mask's top edge down to the baseline (FreeType's `bitmap_top`).
    let top: Int
    /// Each pixel's coverage in both 16-bit halves of a word (`c | c << 16`): the lane shape of the
    /// opaque blend's multiplies.
    let pairs: [UInt32]
    /// Per mask row, the columns to draw: first in the low 16 bits, one past the last in the high (0
    /// and 0 for an empty row). They hold the row's ink, widened inside the mask to a multiple of four
    /// columns where it can be: the blend steps four pixels at a time, a pixel of coverage 0 comes out
    /// of it unchanged, and a row's last one to three pixels would otherwise go one by one (a fifth of
    /// the text's cost, measured). Mask widths stay far below 65,536 (a font is at most 1,000 px).
    let ink: [UInt32]

    init(mask: CoverageMask, left: Int, top: Int) {
        self.mask = mask
        self.left = left
        self.top = top
        pairs = mask.coverage.map { UInt32($0) | UInt32($0) << 16 }
        let width = mask.width
        ink = (0..<mask.height).map { y in
            let row = mask.coverage[y * width..<(y + 1) * width]
            guard let first = row.firstIndex(where: { $0 != 0 }), let last = row.lastIndex(where: { $0 != 0 }) else {
                return 0
            }
            var start = first - y * width, end = last + 1 - y * width
            let short = (4 - (end - start) % 4) % 4
            let right = min(short, width - end)
            end += right
            start -= min(short - right, start)
            return UInt32(truncatingIfNeeded: start) | UInt32(truncatingIfNeeded: end) << 16
        }
    }

    /// What an evicted node keeps (nothing), so its arrays are freed at once.
    static let released = CachedGlyph(mask: CoverageMask(width: 0, height: 0), left: 0, top: 0)

    /// Bytes held: the mask, its pairs and its ink extents.
    var byteCount: Int { mask.coverage.count * 5 + ink.count * 4 }
}

/// What a mask is for: face, glyph, size and quarter-pixel phase, packed into two words so hashing is
/// two `combine` calls.
struct GlyphKey: Hashable {
    var faceAndGlyph: UInt64
    var sizeAndPhase: UInt64

    @inline(__always)
    init(face: UInt32, glyph: UInt32, size26Dot6: Int32, phase: Int) {
        faceAndGlyph = UInt64(face) << 32 | UInt64(glyph)
        sizeAndPhase = UInt64(UInt32(bitPattern: size26Dot6)) << 8 | UInt64(phase & 3)
    }

    private init(faceAndGlyph: UInt64, sizeAndPhase: UInt64) {
        self.faceAndGlyph = faceAndGlyph
        self.sizeAndPhase = sizeAndPhase
    }

    /// Matches no real glyph (sizes are positive, so a size field of all ones never occurs).
    static let dead = GlyphKey(faceAndGlyph: .max, sizeAndPhase: .max)
}

/// Least-recently-used cache of glyph masks, bounded by bytes and by entry count.
///
/// A glyph is rendered by FreeType the first time it is drawn at a given face, pixel size and
/// quarter-pixel phase, then served from here until evicted; `rasterizations` counts the FreeType
/// render calls so tests (and a debug overlay) can prove that redrawing text costs none. A mask larger
/// than the whole byte budget is drawn but not kept, so the bound always holds.
public final class GlyphCache {
    /// Upper bound on `byteCount`; lowering it evicts at once.
    public var maxBytes: Int {
        get { store.maxBytes }
        set { store.maxBytes = max(1, newValue); store.trim() }
    }
    /// Upper bound on `count`; lowering it evicts at once.
    public var maxEntries: Int {
        get { store.maxEntries }
        set { store.maxEntries = max(1, newValue); store.trim() }
    }

    /// FreeType glyph renders performed through this cache (misses of real glyphs).
    public var rasterizations: Int { store.rasterizations }
    /// Lookups served from the cache.
    public var hits: Int { store.hits }
    /// Lookups that had to make a mask (FreeType render or missing-glyph box).
    public var misses: Int { store.misses }
    /// Entries dropped to respect the bounds.
    public var evictions: Int { store.evictions }
    /// Bytes held: each mask with its pairs and ink extents (`CachedGlyph.byteCount`) plus
    /// `entryOverhead` per entry.
    public var byteCount: Int { store.byteCount }
    /// Entries held.
    public var count: Int { store.index.count }

    /// Bookkeeping bytes charged per entry besides its mask (key, node, array header), so a cache of
    /// many tiny masks is bounded too.
    public static let entryOverhead = 96

    /// All mutable state lives in one struct: every access to a class's stored property pays a
    /// dynamic exclusivity check, and a lookup touching eight properties paid eight of them.
    private var store: LRUStore

    /// A cache holding at most `maxBytes` bytes and `maxEntries` masks (each at least 1). The default
    /// of 4 MiB holds several thousand glyphs at label sizes: every phase of a few fonts and sizes.
    public init(maxBytes: Int = 4 << 20, maxEntries: Int = 8192) {
        store = LRUStore(maxBytes: max(1, maxBytes), maxEntries: max(1, maxEntries))
    }

    /// Drops every mask (counters are kept).
    public func removeAll() {
        store.removeAll()
    }

    /// The mask for `glyph` of `font` at quarter-pixel `phase`, rendering it on a miss.
    @inline(__always)
    func glyph(_ glyph: UInt32, font: Font, phase: Int) -> CachedGlyph {
        let key = GlyphKey(face: font.face.serial, glyph: glyph, size26Dot6: font.size26Dot6, phase: phase)
        if let hit = store.lookUp(key) { return hit }
        return makeAndInsert(key, glyph: glyph, font: font, phase: phase)
    }

    @inline(never)
    private func makeAndInsert(_ key: GlyphKey, glyph: UInt32, font: Font, phase: Int) -> CachedGlyph {
        let made: CachedGlyph
        var rendered = false
        if glyph == FontFace.missingGlyph {
            made = Self.makeMissingBox(pixelSize: font.pixelSize)
        } else {
            rendered = true
            made = font.face.render(glyph: glyph, size: font.size26Dot6, phase: phase)
                ?? Self.makeMissingBox(pixelSize: font.pixelSize)
        }
        store.insert(key, made, rendered: rendered)
        return made
    }

    /// The box drawn for characters no font glyph can show: an outlined rectangle standing on the
    /// baseline, cap-height tall, inside a 0.6 em advance. Drawn by us, not FreeType, so it works even
    /// when the font's own .notdef glyph is empty or damaged.
    static func makeMissingBox(pixelSize: Double) -> CachedGlyph {
        let width = max(3, Int((pixelSize * 0.45).rounded()))
        let height = max(3, Int((pixelSize * 0.7).rounded()))
        let stroke = max(1, Int((pixelSize / 14).rounded()))
        var coverage = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width
            where x < stroke || x >= width - stroke || y < stroke || y >= height - stroke {
                coverage[y * width + x] = 255
            }
        }
        return CachedGlyph(
            mask: CoverageMask(width: width, height: height, coverage: coverage),
            left: Int((pixelSize * 0.075).rounded()), top: height)
    }
}

/// The cache's state: nodes of an intrusive doubly linked LRU list kept in an array (indices, not
/// pointers: no allocation per hit, O(1) move-to-front), a dictionary from key to node, and a small
/// direct-mapped table in front of the dictionary. A frame draws the same few dozen glyphs again and
/// again; the front table answers those with one multiply and one compare instead of SipHash.
private struct LRUStore {
    struct Node {
        var key: GlyphKey
        var glyph: CachedGlyph
        var bytes: Int
        var previous: Int32  // towards the most recently used end
        var next: Int32  // towards the least recently used end
    }

    static let none: Int32 = -1
    static let frontBits = 9

    var maxBytes: Int
    var maxEntries: Int
    var rasterizations = 0
    var hits = 0
    var misses = 0
    var evictions = 0
    var byteCount = 0

    var nodes: [Node] = []
    var freeSlots: [Int32] = []
    var index: [GlyphKey: Int32] = [:]
    var front = [Int32](repeating: LRUStore.none, count: 1 << LRUStore.frontBits)
    var head = LRUStore.none  // most recently used
    var tail = LRUStore.none  // least recently used

    init(maxBytes: Int, maxEntries: Int) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
    }

    @inline(__always)
    static func frontIndex(_ key: GlyphKey) -> Int {
        let h = (key.faceAndGlyph &* 0x9E37_79B9_7F4A_7C15) ^ (key.sizeAndPhase &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: h >> UInt64(64 - frontBits))
    }

    @inline(__always)
    mutating func lookUp(_ key: GlyphKey) -> CachedGlyph? {
        let f = Self.frontIndex(key)
        var slot = front[f]
        // A front entry may be stale (slot evicted or reused): the node's own key decides.
        if slot == Self.none || nodes[Int(slot)].key != key {
            guard let found = index[key] else {
                misses += 1
                return nil
            }
            slot = found
            front[f] = found
        }
        hits += 1
        moveToFront(slot)
        return nodes[Int(slot)].glyph
    }

    mutating func insert(_ key: GlyphKey, _ glyph: CachedGlyph, rendered: Bool) {
        if rendered { rasterizations += 1 }
        let bytes = glyph.byteCount + GlyphCache.entryOverhead
        guard bytes <= maxBytes else { return }  // would evict everything and still not fit
        let node = Node(key: key, glyph: glyph, bytes: bytes, previous: Self.none, next: head)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            nodes[Int(slot)] = node
        } else {
            slot = Int32(nodes.count)
            nodes.append(node)
        }
        if head != Self.none { nodes[Int(head)].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
        index[key] = slot
        front[Self.frontIndex(key)] = slot
        byteCount += bytes
        trim()
    }

    mutating func moveToFront(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        nodes[Int(slot)].previous = Self.none
        nodes[Int(slot)].next = head
        if head != Self.none { nodes[Int(head)].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
    }

    mutating func unlink(_ slot: Int32) {
        let previous = nodes[Int(slot)].previous, next = nodes[Int(slot)].next
        if previous != Self.none { nodes[Int(previous)].next = next } else { head = next }
        if next != Self.none { nodes[Int(next)].previous = previous } else { tail = previous }
    }

    /// Evicts least recently used entries until both bounds hold.
    mutating func trim() {
        while byteCount > maxBytes || index.count > maxEntries, tail != Self.none {
            let slot = tail
            unlink(slot)
            let key = nodes[Int(slot)].key
            index[key] = nil
            byteCount -= nodes[Int(slot)].bytes
            // Release the mask now and make the node match no key; the slot is reused by an insert.
            nodes[Int(slot)].key = .dead
            nodes[Int(slot)].glyph = CachedGlyph.released
            freeSlots.append(slot)
            evictions += 1
        }
    }

    mutating func removeAll() {
        nodes.removeAll()
        freeSlots.removeAll()
        index.removeAll()
        front = [Int32](repeating: Self.none, count: 1 << Self.frontBits)
        head = Self.none
        tail = Self.none
        byteCount = 0
    }
}
