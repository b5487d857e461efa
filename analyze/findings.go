package analyze

import (
	"fmt"
	"strconv"

	"github.com/capreport/capreport/render"
)

// Check IDs raised by Extract. They are stable: users name them in
// ignore-check.capreport.io/<ID> annotations and checks.include/exclude.
const (
	CheckDanglingTarget      = "dangling-target"
	CheckDuplicateAutoscaler = "duplicate-autoscaler"
	CheckAssumptionDefault   = "assumption-default"
	CheckInvalidAnnotation   = "invalid-annotation"
	CheckUnknownAnnotation   = "unknown-annotation"
	CheckIgnoreWithoutReason = "ignore-without-reason"
	CheckInvalidAutoscaler   = "invalid-autoscaler"
	CheckKEDAV1Schema        = "keda-v1-schema"
	CheckKEDAPaused          = "keda-paused"
	CheckKEDAInvalidTrigger  = "keda-invalid-trigger"
	CheckKEDAUnknownTrigger  = "keda-unknown-trigger"
	CheckKEDADeprecated      = "keda-deprecated-field"
	CheckKEDAIdleReplicas    = "keda-idle-replicas"
	CheckKEDAValueMetricType = "keda-value-metric-type"
	CheckKafkaPartitions     = "kafka-max-above-partitions"
	CheckSignalUnknown       = "signal-unknown"
	CheckMissingRequest      = "missing-request"
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
