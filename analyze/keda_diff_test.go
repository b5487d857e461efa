package analyze

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/check"
)

// kedaDiffCase is one disagreement internal/kedadiff found between
// capreport's conversion and KEDA v2.19.0's own code (hpa.go over KEDA's
// scale handler and scalers), reduced to the ScaledObject that shows it.
// keda is what KEDA does with it: "refuses" (no HPA: the webhook, the
// reconciler, a scaler or the API server rejects it) or the HPA's
// metrics as "type:name:target" in KEDA's order.
type kedaDiffCase struct {
	name string
	spec string // the ScaledObject's spec, as JSON
	ann  map[string]string
	keda string
	// behavior, when set, is KEDA's behavior as JSON.
	behavior string
	// flag is a check capreport raises where it deliberately differs.
	flag string
}

func (c kedaDiffCase) run(t *testing.T) {
	t.Helper()
	var spec map[string]any
	if err := json.Unmarshal([]byte(c.spec), &spec); err != nil {
		t.Fatal(err)
	}
	meta := map[string]any{"name": "so"}
	if c.ann != nil {
		ann := map[string]any{}
		for k, v := range c.ann {
			ann[k] = v
		}
		meta["annotations"] = ann
	}
	conv, err := ConvertScaledObject(map[string]any{"metadata": meta, "spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	got := "refuses"
	if conv.Refused == "" {
		var ms []string
		for _, m := range conv.Spec.Metrics {
			ms = append(ms, metricString(m))
		}
		got = strings.Join(ms, " ")
	}
	if got != c.keda {
		t.Errorf("capreport %q (refused: %q), KEDA %q", got, conv.Refused, c.keda)
	}
	if c.behavior != "" {
		b, _ := json.Marshal(conv.Spec.Behavior)
		if string(b) != c.behavior {
			t.Errorf("behavior %s, KEDA %s", b, c.behavior)
		}
	}
	if c.flag != "" && !slices.ContainsFunc(conv.Findings, func(f check.Finding) bool { return f.Check == c.flag }) {
		t.Errorf("no %s finding among %v", c.flag, conv.Findings)
	}
}

func metricString(m autoscalingv2.MetricSpec) string {
	switch {
	case m.External != nil:
		t := m.External.Target
		q := t.AverageValue
		if t.Type == autoscalingv2.ValueMetricType {
			q = t.Value
		}
		return "External:" + m.External.Metric.Name + ":" + q.String()
	case m.Resource != nil:
		return "Resource:" + string(m.Resource.Name)
	case m.ContainerResource != nil:
		return "ContainerResource:" + string(m.ContainerResource.Name)
	}
	return string(m.Type)
}

const sqs = `{"type":"aws-sqs-queue","metadata":{"queueURL":"https://sqs.eu-west-1.amazonaws.com/1/orders","awsRegion":"eu-west-1"}}`

func soSpec(triggers ...string) string {
	return `{"scaleTargetRef":{"name":"web"},"minReplicaCount":1,"triggers":[` + strings.Join(triggers, ",") + `]}`
}

func trig(typ string, md map[string]string) string {
	b, _ := json.Marshal(map[string]any{"type": typ, "metadata": md})
	return string(b)
}

func TestKEDADiffCases(t *testing.T) {
	sqsMetric := "External:s0-aws-sqs-orders:5"
	cases := []kedaDiffCase{
		// Annotations are read untrimmed: "false " is not a boolean, and
		// KEDA takes what it cannot parse as true.
		{name: "paused-scale-in with a trailing space disables scale-down", spec: soSpec(sqs),
			ann: map[string]string{"autoscaling.keda.sh/paused-scale-in": "false "}, keda: sqsMetric,
			behavior: `{"scaleDown":{"selectPolicy":"Disabled"}}`},
		// The webhook's CheckFallbackValid.
		{name: "fallback with a negative failureThreshold", keda: "refuses",
			spec: `{"scaleTargetRef":{"name":"web"},"fallback":{"failureThreshold":-1,"replicas":3},"triggers":[` + sqs + `]}`},
		{name: "fallback over cpu triggers only", keda: "refuses",
			spec: `{"scaleTargetRef":{"name":"web"},"minReplicaCount":1,"fallback":{"failureThreshold":3,"replicas":3},"triggers":[{"type":"cpu","metricType":"Utilization","metadata":{"value":"50"}}]}`},
		// Any scalingModifiers field makes KEDA use them; the formula is
		// then mandatory and its names must be triggers'.
		{name: "scalingModifiers with only a metricType", keda: "refuses",
			spec: `{"scaleTargetRef":{"name":"web"},"advanced":{"scalingModifiers":{"metricType":"Value"}},"triggers":[` + sqs + `]}`},
		{name: "scalingModifiers formula over an undefined name", keda: "refuses",
			spec: `{"scaleTargetRef":{"name":"web"},"advanced":{"scalingModifiers":{"formula":"missing","target":"5"}},"triggers":[` + sqs + `]}`},
		{name: "scalingModifiers formula ending in an operator", keda: "refuses",
			spec: `{"scaleTargetRef":{"name":"web"},"advanced":{"scalingModifiers":{"formula":"q +","target":"5"}},"triggers":[{"name":"q","type":"aws-sqs-queue","metadata":{"queueURL":"orders"}}]}`},
		{name: "scalingModifiers formula with an exponent literal", keda: "External:composite-metric:5",
			spec: `{"scaleTargetRef":{"name":"web"},"advanced":{"scalingModifiers":{"formula":"q * 1e3","target":"5"}},"triggers":[{"name":"q","type":"aws-sqs-queue","metadata":{"queueURL":"orders"}}]}`},
		{name: "scalingModifiers keep Resource metrics and drop ContainerResource ones",
			spec: `{"scaleTargetRef":{"name":"web"},"minReplicaCount":1,"advanced":{"scalingModifiers":{"formula":"q","target":"5"}},"triggers":[{"name":"q","type":"aws-sqs-queue","metadata":{"queueURL":"orders"}},` +
				`{"type":"memory","metricType":"AverageValue","metadata":{"value":"1Gi","containerName":"app"}},{"type":"cpu","metricType":"Utilization","metadata":{"value":"50"}}]}`,
			keda: "External:composite-metric:5 Resource:cpu"},
		// ValidateTriggers.
		{name: "useCachedMetrics on a cron trigger", keda: "refuses",
			spec: soSpec(`{"type":"cron","useCachedMetrics":true,"metadata":{"timezone":"Etc/UTC","start":"0 8 * * *","end":"0 18 * * *","desiredReplicas":"3"}}`)},
		// The API server's HPA validation, which KEDA's Create meets.
		{name: "maxReplicaCount 0 with minReplicaCount unset", keda: "refuses",
			spec: `{"scaleTargetRef":{"name":"web"},"maxReplicaCount":0,"triggers":[` + sqs + `]}`},
		{name: "redis listLength 0", keda: "refuses",
			spec: soSpec(trig("redis", map[string]string{"address": "r:6379", "listName": "l", "listLength": "0"}))},
		{name: "cpu utilization 0", keda: "refuses",
			spec: soSpec(`{"type":"cpu","metricType":"Utilization","metadata":{"value":"0"}}`)},
		// KEDA's scalers take such thresholds: only the HPA's final
		// metrics meet the API server, and a composite replaces External
		// metrics and drops ContainerResource ones (seed 7, cases of the
		// ScaledObject group at 10^5).
		{name: "sqs queueLength -3 under a composite metric", keda: "External:composite-metric:5",
			spec: `{"scaleTargetRef":{"name":"web"},"minReplicaCount":1,"advanced":{"scalingModifiers":{"formula":"2","target":"5"}},"triggers":[` +
				trig("aws-sqs-queue", map[string]string{"queueURL": "orders", "queueLength": "-3"}) + `]}`},
		{name: "container cpu utilization 0 under a composite metric", keda: "External:composite-metric:5",
			spec: `{"scaleTargetRef":{"name":"web"},"minReplicaCount":1,"advanced":{"scalingModifiers":{"formula":"q","target":"5"}},"triggers":[{"name":"q","type":"aws-sqs-queue","metadata":{"queueURL":"orders"}},` +
				`{"type":"cpu","metricType":"Utilization","metadata":{"value":"0","containerName":"app"}}]}`},
		{name: "prometheus threshold 0", keda: "refuses",
			spec: soSpec(trig("prometheus", map[string]string{"serverAddress": "http://p", "query": "q", "threshold": "0"}))},
		{name: "aws-cloudwatch targetMetricValue -3", keda: "refuses",
			spec: soSpec(trig("aws-cloudwatch", map[string]string{"namespace": "AWS/SQS", "metricName": "m", "dimensionName": "d", "dimensionValue": "v", "targetMetricValue": "-3", "minMetricValue": "0"}))},
		{name: "aws-cloudwatch takes targetMetricValue in milli-units", keda: "External:s0-aws-cloudwatch:2500m",
			spec: soSpec(trig("aws-cloudwatch", map[string]string{"namespace": "AWS/SQS", "metricName": "m", "dimensionName": "d", "dimensionValue": "v", "targetMetricValue": "2.5", "minMetricValue": "0"}))},
		{name: "aws-cloudwatch without minMetricValue", keda: "refuses",
			spec: soSpec(trig("aws-cloudwatch", map[string]string{"namespace": "AWS/SQS", "metricName": "m", "dimensionName": "d", "dimensionValue": "v", "targetMetricValue": "2"}))},
		// The SQS queue name: a request URI must have the path /<account>/<queue>.
		{name: "sqs queueURL with a longer path", keda: "refuses",
			spec: soSpec(trig("aws-sqs-queue", map[string]string{"queueURL": "https://example.com/a/b/c/d"}))},
		{name: "sqs queueURL that is not a URI names the queue", keda: "External:s0-aws-sqs-a-b-c:5",
			spec: soSpec(trig("aws-sqs-queue", map[string]string{"queueURL": "a/b/c"}))},
		// gcp-pubsub: subscriptionSize 0 counts as unset.
		{name: "pubsub subscriptionSize 0", keda: "External:s0-gcp-ps-orders:10",
			spec: soSpec(trig("gcp-pubsub", map[string]string{"subscriptionName": "orders", "subscriptionSize": "0"}))},
		{name: "pubsub subscriptionSize with topicName", keda: "refuses",
			spec: soSpec(trig("gcp-pubsub", map[string]string{"topicName": "orders", "subscriptionSize": "3"}))},
		{name: "pubsub with both a subscription and a topic", keda: "refuses",
			spec: soSpec(trig("gcp-pubsub", map[string]string{"topicName": "orders", "subscriptionName": "orders"}))},
		// RabbitMQ reads values, not keys: 0 is unset.
		{name: "rabbitmq queueLength 0 beside mode and value", keda: "External:s0-rabbitmq-q:7",
			spec: soSpec(trig("rabbitmq", map[string]string{"host": "http://r", "queueName": "q", "queueLength": "0", "mode": "QueueLength", "value": "7"}))},
		{name: "rabbitmq MessageRate over AMQP", keda: "refuses",
			spec: soSpec(trig("rabbitmq", map[string]string{"host": "amqp://r", "queueName": "q", "mode": "MessageRate", "value": "7"}))},
		{name: "rabbitmq queueLength 1_000", keda: "refuses",
			spec: soSpec(trig("rabbitmq", map[string]string{"host": "http://r", "queueName": "q", "queueLength": "1_000"}))},
		// Typed numbers are JSON, trimmed.
		{name: "redis listLength +4", keda: "refuses",
			spec: soSpec(trig("redis", map[string]string{"address": "r:6379", "listName": "l", "listLength": "+4"}))},
		{name: "redis listLength padded", keda: "External:s0-redis-l:7",
			spec: soSpec(trig("redis", map[string]string{"address": "r:6379", "listName": "l", "listLength": " 7"}))},
		{name: "nats-jetstream without a stream", keda: "refuses",
			spec: soSpec(trig("nats-jetstream", map[string]string{"natsServerMonitoringEndpoint": "n:8222", "account": "$G", "consumer": "c"}))},
		{name: "azure-servicebus topic without a subscription", keda: "refuses",
			spec: soSpec(trig("azure-servicebus", map[string]string{"topicName": "t"}))},
		// Kafka reads its metadata with strconv, untrimmed.
		{name: "kafka lagThreshold padded", keda: "refuses",
			spec: soSpec(trig("kafka", map[string]string{"bootstrapServers": "k:9092", "consumerGroup": "g", "topic": "t", "lagThreshold": " 7"}))},
		{name: "kafka lagThreshold +4", keda: "External:s0-kafka-t:4",
			spec: soSpec(trig("kafka", map[string]string{"bootstrapServers": "k:9092", "consumerGroup": "g", "topic": "t", "lagThreshold": "+4"}))},
		{name: "kafka without a consumerGroup", keda: "refuses",
			spec: soSpec(trig("kafka", map[string]string{"bootstrapServers": "k:9092", "topic": "t"}))},
		{name: "kafka allowIdleConsumers maybe", keda: "refuses",
			spec: soSpec(trig("kafka", map[string]string{"bootstrapServers": "k:9092", "consumerGroup": "g", "allowIdleConsumers": "maybe"}))},
		{name: "kafka offsetResetPolicy never", keda: "refuses",
			spec: soSpec(trig("kafka", map[string]string{"bootstrapServers": "k:9092", "consumerGroup": "g", "offsetResetPolicy": "never"}))},
		{name: "kafka limitToPartitionsWithLag without a topic", keda: "refuses",
			spec: soSpec(trig("kafka", map[string]string{"bootstrapServers": "k:9092", "consumerGroup": "g", "limitToPartitionsWithLag": "true"}))},
		// cron schedules parse as five fields.
		{name: "cron start that does not parse", keda: "refuses",
			spec: soSpec(trig("cron", map[string]string{"timezone": "Etc/UTC", "start": "bad cron", "end": "0 18 * * *", "desiredReplicas": "3"}))},
		{name: "cron with ? and a day name", keda: "External:s0-cron-Etc-UTC-306QmxMON-018xxx:1",
			spec: soSpec(trig("cron", map[string]string{"timezone": "Etc/UTC", "start": "30 6 ? * MON", "end": "0 18 * * *", "desiredReplicas": "3"}))},
		// Deliberate: capreport reads metadata.type beside metricType and
		// flags it; KEDA v2.19 refuses it.
		{name: "cpu metadata.type beside metricType is flagged", keda: "Resource:cpu", flag: "keda-deprecated-field",
			spec: soSpec(`{"type":"cpu","metricType":"Utilization","metadata":{"type":"Utilization","value":"50"}}`)},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
