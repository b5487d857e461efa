package analyze

import (
	"fmt"
	"strconv"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// findingAt builds a finding located at an object's origin.
func findingAt(o render.Origin, id, severity, remediation, format string, args ...any) check.Finding {
	return check.Finding{
		Check:       id,
		Severity:    severity,
		Message:     fmt.Sprintf(format, args...),
		Remediation: remediation,
		Location:    check.At(o.File, o.Line)}
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
