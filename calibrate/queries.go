package calibrate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/capreport/capreport/config"
)

// The default per-pod rate queries: the first that a pod exports wins (or
// keeps one series per pod, so a pod exporting two is not counted twice).
// Each is a counter of what the pod served; $namespace and $window are
// substituted.
var (
	// DefaultRequestRate covers the Prometheus client convention, Spring
	// (Micrometer), OpenTelemetry's HTTP server semantic conventions and
	// Istio's sidecar on the serving side.
	DefaultRequestRate = orPerPod(
		`http_requests_total{namespace="$namespace"}`,
		`http_server_requests_seconds_count{namespace="$namespace"}`,
		`http_server_request_duration_seconds_count{namespace="$namespace"}`,
		`istio_requests_total{namespace="$namespace",reporter="destination"}`,
	)
	// DefaultConsumerRate covers Kafka consumers (Micrometer's and the JMX
	// exporter's fetch-manager records) and RabbitMQ clients (Micrometer).
	DefaultConsumerRate = orPerPod(
		`kafka_consumer_fetch_manager_records_consumed_total{namespace="$namespace"}`,
		`kafka_consumer_consumer_fetch_manager_metrics_records_consumed_total{namespace="$namespace"}`,
		`rabbitmq_consumed_total{namespace="$namespace"}`,
	)
)

func orPerPod(selectors ...string) string {
	parts := make([]string, len(selectors))
	for i, s := range selectors {
		parts[i] = "sum by (namespace, pod) (rate(" + s + "[$window]))"
	}
	return strings.Join(parts, " or ")
}

// expand substitutes a query template's variables. Label values are
// quoted by the template; expand escapes what would end the quote.
func expand(tmpl, namespace, name string, window time.Duration) string {
	esc := func(s string) string { return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) }
	return strings.NewReplacer("$namespace", esc(namespace), "$name", esc(name),
		"$window", promDuration(window)).Replace(tmpl)
}

// promDuration writes d as PromQL does: "7d", "36h", "5m", "90s".
func promDuration(d time.Duration) string {
	for _, u := range []struct {
		d time.Duration
		s string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}} {
		if d >= u.d && d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.s
		}
	}
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// queries are the PromQL one namespace is measured with.
type queries struct {
	ns            string
	since, window time.Duration
	t0            time.Time // pods created before it are left out
}

func (q queries) sel(metric, extra string) string {
	return fmt.Sprintf(`%s{namespace=%q%s}`, metric, q.ns, extra)
}

func (q queries) podOwners() string {
	return fmt.Sprintf("max by (namespace, pod, owner_kind, owner_name) (max_over_time(%s[%s]))",
		q.sel("kube_pod_owner", ""), promDuration(q.since))
}

func (q queries) replicaSetOwners() string {
	return fmt.Sprintf("max by (namespace, replicaset, owner_kind, owner_name) (max_over_time(%s[%s]))",
		q.sel("kube_replicaset_owner", ""), promDuration(q.since))
}

// deadTimes is each pod's seconds from creation to its first Ready, for
// pods created since t0.
func (q queries) deadTimes() string {
	s := promDuration(q.since)
	return fmt.Sprintf("min by (namespace, pod) (min_over_time(%s[%s])) - on (namespace, pod) "+
		"(max by (namespace, pod) (max_over_time(%s[%s])) >= %d)",
		q.sel("kube_pod_status_ready_time", ""), s, q.sel("kube_pod_created", ""), s, q.t0.Unix())
}

// cpuUsage is each pod's CPU use in cores.
func (q queries) cpuUsage() string {
	return fmt.Sprintf("sum by (namespace, pod) (rate(%s[%s]))",
		q.sel("container_cpu_usage_seconds_total", `,container!="",container!="POD"`), promDuration(q.window))
}

// cpuRequests is each pod's CPU request in cores.
func (q queries) cpuRequests() string {
	return fmt.Sprintf("sum by (namespace, pod) (%s)", q.sel("kube_pod_container_resource_requests", `,resource="cpu"`))
}

// kedaValues is the metric each ScaledObject's scalers report (the
// backlog it scales on).
func (q queries) kedaValues() string {
	return fmt.Sprintf("max by (namespace, scaledObject) (%s)", q.sel("keda_scaler_metrics_value", ""))
}

// podRateRecord is the query a pod rate is written with: served requests
// over CPU use per request, per pod.
func podRateRecord(requests, usage, cpuRequests string) string {
	return fmt.Sprintf("(%s) / on (namespace, pod) ((%s) / on (namespace, pod) (%s))", requests, usage, cpuRequests)
}

// windowName is how a record names the window.
func windowName(d time.Duration) string { return config.FormatWindow(d) }
