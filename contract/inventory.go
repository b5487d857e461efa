package contract

import "encoding/json"

// InventorySchemaVersion is the version of `capreport list --format json`,
// the inventory contract (report/schema/inventory.v1.json documents it).
// Bump it on any change that is not purely additive.
const InventorySchemaVersion = "capreport.io/inventory/v1"

// Inventory is what capreport found before pricing anything: every
// autoscaler with its target, metrics and assumptions, the objects it
// skipped and why, every source and what became of it, and the findings
// that belong to no autoscaler. Scripts read it; nothing in it is priced.
type Inventory struct {
	SchemaVersion string                `json:"schemaVersion"`
	Autoscalers   []InventoryAutoscaler `json:"autoscalers"`
	Skipped       []InventorySkipped    `json:"skipped"`
	Sources       []InventorySource     `json:"sources"`
	// Findings of rendering and of extraction that belong to no autoscaler.
	Findings []InventoryFinding `json:"findings"`
}

// InventoryAutoscaler is one HPA or ScaledObject as extracted.
type InventoryAutoscaler struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	APIVersion string          `json:"apiVersion"`
	Name       string          `json:"name"`
	Namespace  string          `json:"namespace,omitempty"`
	HPAName    string          `json:"hpaName"`
	Source     InventoryPlace  `json:"source"`
	Target     InventoryTarget `json:"target"`
	Signal     string          `json:"signal"`
	SignalFrom string          `json:"signalFrom"`
	Unpriced   string          `json:"unpriced,omitempty"`
	// MinReplicas is the fewest replicas the autoscaler keeps, as in the
	// report: for a ScaledObject KEDA's idle floor (0 without
	// minReplicaCount), which may be below the generated HPA's.
	MinReplicas int32 `json:"minReplicas"`
	MaxReplicas int32 `json:"maxReplicas"`
	// KEDA is what a ScaledObject sets beyond its HPA; absent for an HPA.
	KEDA *KEDA `json:"keda,omitempty"`
	// Behavior is the effective autoscaling/v2 behavior as Kubernetes
	// writes it (HorizontalPodAutoscalerBehavior).
	Behavior    json.RawMessage       `json:"behavior,omitempty"`
	Metrics     []InventoryMetric     `json:"metrics"`
	Assumptions []InventoryAssumption `json:"assumptions"`
	Ignores     map[string]string     `json:"ignores,omitempty"`
	Findings    []InventoryFinding    `json:"findings"`
}

// InventoryPlace is where an object was rendered, and how it was
// delivered when a GitOps object delivered it.
type InventoryPlace struct {
	Source  string `json:"source,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Via     string `json:"via,omitempty"`
	Chain   []Link `json:"chain,omitempty"`
	Partial bool   `json:"partial,omitempty"`
}

// InventoryTarget is the workload an autoscaler scales, with its pods'
// resources.
type InventoryTarget struct {
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	Found              bool   `json:"found"`
	Replicas           *int32 `json:"replicas,omitempty"`
	CPURequestMilli    int64  `json:"cpuRequestMilli"`
	CPULimitMilli      int64  `json:"cpuLimitMilli"`
	MemoryRequestBytes int64  `json:"memoryRequestBytes"`
	MemoryLimitBytes   int64  `json:"memoryLimitBytes"`
	Containers         int    `json:"containers"`
	File               string `json:"file,omitempty"`
	Line               int    `json:"line,omitempty"`
}

// InventoryMetric is one metric of the effective HPA and the signal it
// carries.
type InventoryMetric struct {
	Type       string `json:"type"`
	Name       string `json:"name"`
	Container  string `json:"container,omitempty"`
	TargetType string `json:"targetType"`
	Target     string `json:"target,omitempty"`
	Signal     string `json:"signal"`
	Reason     string `json:"reason,omitempty"`
	Trigger    string `json:"trigger,omitempty"`
	ReplicaCap *int32 `json:"replicaCap,omitempty"`
}

// InventoryAssumption is one assumed value. Durations are in seconds (the
// key ends in "Seconds") so that a script can read them without parsing
// Go duration strings; Text is the value as the ledger prints it.
type InventoryAssumption struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
	Text  string `json:"text"`
	From  string `json:"from"`
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	// Measured is how calibrate measured the value (From "measured").
	Measured *Measured `json:"measured,omitempty"`
}

// InventorySkipped is an object that looked like an autoscaler and was
// left out, with why.
type InventorySkipped struct {
	Kind      string         `json:"kind"`
	Name      string         `json:"name"`
	Namespace string         `json:"namespace,omitempty"`
	Source    InventoryPlace `json:"source"`
	Reason    string         `json:"reason"`
}

// InventoryFinding is a finding of rendering or extraction.
type InventoryFinding struct {
	Check       string `json:"check"`
	Severity    string `json:"severity"`
	Message     string `json:"message"`
	Remediation string `json:"remediation,omitempty"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
}

// InventorySource is one source and what became of it.
type InventorySource struct {
	Path     string                   `json:"path"`
	Type     string                   `json:"type"`
	ValueSet string                   `json:"valueSet,omitempty"`
	Status   string                   `json:"status"`
	Reason   string                   `json:"reason,omitempty"`
	Objects  int                      `json:"objects"`
	Findings []InventorySourceFinding `json:"findings,omitempty"`
	Partial  bool                     `json:"partial,omitempty"`
	Chain    []Link                   `json:"chain,omitempty"`
	// Repository says which repository a delivered source was read from,
	// and why (this one, by which URL, or a --source mapping).
	Repository string `json:"repository,omitempty"`
}

// InventorySourceFinding is a finding of rendering one source.
type InventorySourceFinding struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Source   string `json:"source,omitempty"`
}
