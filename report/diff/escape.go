package diff

import "github.com/capreport/capreport/report/internal/safetext"

// Ids, metric names, finding checks and roots come from manifests, which a
// fork's pull request controls; the escaping rules are safetext's, shared
// with package report.
var (
	mdText    = safetext.Markdown
	htmlText  = safetext.HTML
	termText  = safetext.Terminal
	ellipsize = safetext.Ellipsize
)
