import Codecs
import PhotoCore

// Placeholder: the edit-store work fills this module (sidecar model, migrations, EditStore).
