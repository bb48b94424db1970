/// How a (padded, resampled) image is cut into tiles for the network.
///
/// The image is split into a grid of cores, each owned by one tile: a cell of the output maps
/// belongs to the tile whose core holds it, so every cell is computed exactly once. Each tile
/// also reads `margin` pixels of context around its core (less at the image's edges), so the
/// cells near a core's edge see what they would see in the whole image, and a face whose centre
/// lies in the core is seen whole if it is at most 2 × margin wide. Cores and margins are
/// multiples of 32, so every tile's grid of strides lines up with the whole image's.
struct TileGrid: Equatable {
  struct Tile: Equatable {
    /// The pixels the network reads: x, y, width, height.
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    /// The pixels whose output cells this tile owns.
    var coreX: Int
    var coreY: Int
    var coreWidth: Int
    var coreHeight: Int
  }

  var tiles: [Tile]

  /// - Parameters:
  ///   - width, height: The padded image's size, multiples of 32.
  ///   - margin: Context around each core, a multiple of 32.
  ///   - maxPixels: Pixels per tile, at most (raised to what one 32-pixel core and its margins
  ///     need, when it is less).
  init(width: Int, height: Int, margin: Int, maxPixels: Int) {
    precondition(width > 0 && height > 0 && width % 32 == 0 && height % 32 == 0)
    precondition(margin >= 0 && margin % 32 == 0)
    let budget = max(maxPixels, min(width, 32 + 2 * margin) * min(height, 32 + 2 * margin))
    // The columns and rows of cores that need the fewest pixels computed in all (the margins
    // are computed twice), within the budget; fewer tiles on a tie.
    var best: (cost: Int, nx: Int, ny: Int)? = nil
    for nx in 1...(width / 32) {
      let cx = Self.coreSize(width, nx)
      let tileWidth = min(width, cx + 2 * margin)
      if tileWidth * min(height, 32 + 2 * margin) > budget { continue }
      for ny in 1...(height / 32) {
        let cy = Self.coreSize(height, ny)
        guard tileWidth * min(height, cy + 2 * margin) <= budget else { continue }
        let cost = Self.span(width, nx, cx, margin) * Self.span(height, ny, cy, margin)
        if best == nil || cost < best!.cost || (cost == best!.cost && nx * ny < best!.nx * best!.ny) {
          best = (cost, nx, ny)
        }
        break  // more rows only cost more
      }
    }
    let (nx, ny) = best.map { ($0.nx, $0.ny) } ?? (width / 32, height / 32)
    let cx = Self.coreSize(width, nx)
    let cy = Self.coreSize(height, ny)
    var tiles: [Tile] = []
    var y0 = 0
    while y0 < height {
      let y1 = min(height, y0 + cy)
      var x0 = 0
      while x0 < width {
        let x1 = min(width, x0 + cx)
        let tx0 = max(0, x0 - margin)
        let ty0 = max(0, y0 - margin)
        let tx1 = min(width, x1 + margin)
        let ty1 = min(height, y1 + margin)
        tiles.append(
          Tile(
            x: tx0, y: ty0, width: tx1 - tx0, height: ty1 - ty0, coreX: x0, coreY: y0, coreWidth: x1 - x0,
            coreHeight: y1 - y0))
        x0 = x1
      }
      y0 = y1
    }
    self.tiles = tiles
  }

  /// The core size that splits `length` into `n` pieces (the last may be shorter).
  private static func coreSize(_ length: Int, _ n: Int) -> Int {
    ((length + n - 1) / n + 31) / 32 * 32
  }

  /// The pixels computed along one axis: every tile's extent.
  private static func span(_ length: Int, _ n: Int, _ core: Int, _ margin: Int) -> Int {
    var total = 0
    var a = 0
    while a < length {
      let b = min(length, a + core)
      total += min(length, b + margin) - max(0, a - margin)
      a = b
    }
    return total
  }
}
