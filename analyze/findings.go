package analyze

import (
	"fmt"
	"strconv"

	"github.com/capreport/capreport/render"
)

// findingAt builds a finding located at an object's origin.
func findingAt(o render.Origin, check, severity, remediation, format string, args ...any) Finding {
	return Finding{
		Check:       check,
		Severity:    severity,
		Message:     fmt.Sprintf(format, args...),
		Remediation: remediation,
		File:        o.File,
		Line:        o.Line,
	}
}

// annotationOrigin returns o located at annotation key's own line when
// the renderer knew it, else o unchanged (the object's line).
func annotationOrigin(o render.Origin, key string) render.Origin {
	if l := o.AnnotationLines[key]; l > 0 {
		o.Line = l
	}
	return o
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
