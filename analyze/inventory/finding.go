package inventory

import (
	"fmt"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// FindingAt builds a finding located at an object's origin.
func FindingAt(o render.Origin, id, severity, remediation, format string, args ...any) check.Finding {
	return check.Finding{
		Check:       id,
		Severity:    severity,
		Message:     fmt.Sprintf(format, args...),
		Remediation: remediation,
		Location:    check.At(o.File, o.Line)}
}

// AnnotationOrigin returns o located at annotation key's own line when
// the renderer knew it, else o unchanged (the object's line).
func AnnotationOrigin(o render.Origin, key string) render.Origin {
	if l := o.AnnotationLines[key]; l > 0 {
		o.Line = l
	}
	return o
}
