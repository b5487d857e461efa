// Package keda derives, from a KEDA ScaledObject, the HorizontalPodAutoscaler
// KEDA v2.19's operator would create for it (kedacore/keda
// controllers/keda/hpa.go and its scalers' metric specs), with the checks of
// KEDA's admission webhook and of the API server as findings, and the KEDA
// settings the simulation needs beyond the HPA (floors, activation, polling,
// fallback). internal/kedadiff compares it with KEDA's own code. It changes
// with KEDA's releases, not with capreport's extraction.
package keda

import "github.com/capreport/capreport/analyze/inventory"

// The translation fills in inventory's types.
type (
	Metric       = inventory.Metric
	KEDA         = inventory.KEDA
	KEDAFallback = inventory.KEDAFallback
	Signal       = inventory.Signal
	Trigger      = inventory.Trigger
)
