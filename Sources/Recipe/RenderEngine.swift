import Codecs
import PhotoCore

/// The codecs and filters the store renders with, behind one seam so tests can run the store's
/// file protocol without real images.
protocol RenderEngine: Sendable {}

/// The real codecs and filters.
struct LiveEngine: RenderEngine {}
