package keda

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// KEDA v2.19.0 parses most scalers' metadata through its typed config
// (pkg/scalers/scalersconfig/typed_config.go): a value is trimmed, an
// empty value counts as absent, and a number is decoded as JSON into the
// field's type, so "+4", "007", "1_000" and "0x10" are refused where
// strconv would take some of them, and an integer field refuses "2.5" and
// "1e3". The kafka scaler still reads its metadata by hand (strconv,
// untrimmed). kedaScalerParse applies these rules before capreport's own
// translation (translateTrigger), which then reads the metadata as KEDA
// resolved it. Facts from internal/kedadiff, which drives KEDA's scalers.

// kedaScalerSpec is what one typed scaler requires and which of its
// metadata are integers and floats.
type kedaScalerSpec struct {
	required      []string
	ints, floats  []string
	typedMetadata bool // read through the typed config
	check         func(md map[string]string) string
}

var kedaScalerSpecs = map[string]kedaScalerSpec{
	"prometheus": {typedMetadata: true, required: []string{"query", "threshold"},
		floats: []string{"threshold", "activationThreshold"}},
	"aws-sqs-queue": {typedMetadata: true, required: []string{"queueURL"},
		ints: []string{"queueLength", "activationQueueLength"}, check: sqsQueueURLProblem},
	"redis": {typedMetadata: true, required: []string{"listName"},
		ints: []string{"listLength", "activationListLength", "databaseIndex"}},
	"cron": {typedMetadata: true, required: []string{"start", "end", "timezone", "desiredReplicas"},
		ints: []string{"desiredReplicas"}, check: cronProblem},
	"nats-jetstream": {typedMetadata: true, required: []string{"stream", "consumer"},
		ints: []string{"lagThreshold", "activationLagThreshold"}},
	"gcp-pubsub": {typedMetadata: true, ints: []string{"subscriptionSize"},
		floats: []string{"value", "activationValue"}, check: pubsubProblem},
	"azure-servicebus": {typedMetadata: true, ints: []string{"messageCount", "activationMessageCount"},
		check: serviceBusProblem},
	"rabbitmq": {typedMetadata: true, required: []string{"queueName"},
		floats: []string{"queueLength", "value", "activationValue"}, check: rabbitMQModeProblem},
	"aws-cloudwatch": {typedMetadata: true, required: []string{"targetMetricValue", "minMetricValue"},
		floats: []string{"targetMetricValue", "activationTargetMetricValue", "minMetricValue"}, check: cloudwatchProblem},
	"kafka": {check: kafkaProblem},
}

// kedaScalerParse returns the metadata as KEDA's scaler for t resolves it
// (typed scalers: trimmed, empty values dropped, legacy forms rewritten),
// or why KEDA fails to build the scaler. A parameter given through
// <key>FromEnv counts as present: its value is in the target's
// environment, which capreport does not resolve. Where a scaler connects
// (server addresses, hosts, brokers, accounts, regions) is not required
// here, though KEDA requires it: such parameters often come from a
// TriggerAuthentication, which capreport does not read, and they do not
// shape the HPA (internal/kedadiff/README.md, deliberate differences).
func kedaScalerParse(t Trigger) (map[string]string, string) {
	spec, ok := kedaScalerSpecs[t.Type]
	if !ok {
		return t.Metadata, ""
	}
	md := t.Metadata
	if spec.typedMetadata {
		md = typedMetadata(t.Metadata)
	}
	for _, k := range spec.required {
		if _, ok := md[k]; !ok && t.Metadata[k+"FromEnv"] == "" {
			return nil, fmt.Sprintf("metadata.%s is required", k)
		}
	}
	for _, k := range spec.ints {
		if v, ok := md[k]; ok && json.Unmarshal([]byte(v), new(int64)) != nil {
			return nil, fmt.Sprintf("metadata.%s %q is not an integer", k, v)
		}
	}
	for _, k := range spec.floats {
		if v, ok := md[k]; ok && json.Unmarshal([]byte(v), new(float64)) != nil {
			return nil, fmt.Sprintf("metadata.%s %q is not a number", k, v)
		}
	}
	if spec.check != nil {
		if p := spec.check(md); p != "" {
			return nil, p
		}
	}
	if t.Type == "gcp-pubsub" && md["subscriptionSize"] != "" {
		if n, _ := strconv.ParseInt(md["subscriptionSize"], 10, 64); n == 0 {
			// KEDA reads subscriptionSize 0 as unset.
			delete(md, "subscriptionSize")
		}
	}
	if t.Type == "rabbitmq" {
		rabbitMQCanonical(md)
	}
	return md, ""
}

// typedMetadata is a copy of md as the typed config reads it.
func typedMetadata(md map[string]string) map[string]string {
	out := make(map[string]string, len(md))
	for k, v := range md {
		if v = strings.TrimSpace(v); v != "" {
			out[k] = v
		}
	}
	return out
}

// kafkaProblem is parseKafkaMetadata's refusals for the parameters that
// shape the metric (kafka_scaler.go): its numbers and flags are read with
// strconv, untrimmed, whenever the key is present.
func kafkaProblem(md map[string]string) string {
	if md["consumerGroup"] == "" && md["consumerGroupFromEnv"] == "" {
		return "metadata.consumerGroup is required"
	}
	if p := md["offsetResetPolicy"]; p != "" && p != "latest" && p != "earliest" {
		return fmt.Sprintf("metadata.offsetResetPolicy %q is not latest or earliest", p)
	}
	for key, lowest := range map[string]int64{"lagThreshold": 1, "activationLagThreshold": 0} {
		if v, ok := md[key]; ok {
			if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < lowest {
				return fmt.Sprintf("metadata.%s %q must be an integer of at least %d", key, v, lowest)
			}
		}
	}
	flags := map[string]bool{}
	for _, key := range []string{"allowIdleConsumers", "excludePersistentLag", "scaleToZeroOnInvalidOffset", "limitToPartitionsWithLag", "ensureEvenDistributionOfPartitions"} {
		if v, ok := md[key]; ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Sprintf("metadata.%s %q is not a boolean", key, v)
			}
			flags[key] = b
		}
	}
	topic := md["topic"] != "" || md["topicFromEnv"] != ""
	switch {
	case flags["allowIdleConsumers"] && flags["limitToPartitionsWithLag"]:
		return "allowIdleConsumers and limitToPartitionsWithLag cannot be set together"
	case !topic && flags["limitToPartitionsWithLag"]:
		return "limitToPartitionsWithLag needs metadata.topic"
	case flags["limitToPartitionsWithLag"] && flags["ensureEvenDistributionOfPartitions"]:
		return "limitToPartitionsWithLag and ensureEvenDistributionOfPartitions cannot be set together"
	case !topic && flags["ensureEvenDistributionOfPartitions"]:
		return "ensureEvenDistributionOfPartitions needs metadata.topic"
	}
	return ""
}

// sqsQueueURLProblem: KEDA takes the queue name from a queueURL that
// parses as a request URI only when its path is /<account>/<name>.
func sqsQueueURLProblem(md map[string]string) string {
	u, err := url.ParseRequestURI(md["queueURL"])
	if err != nil {
		return ""
	}
	parts := strings.Split(u.Path, "/")
	if len(parts) != 3 || parts[2] == "" {
		return fmt.Sprintf("cannot take a queue name from queueURL %q (want https://sqs.<region>.amazonaws.com/<account>/<queue>)", md["queueURL"])
	}
	return ""
}

// kedaSQSQueueName is the queue name in the SQS metric's name.
func kedaSQSQueueName(md map[string]string) string {
	u, err := url.ParseRequestURI(md["queueURL"])
	if err != nil {
		return md["queueURL"]
	}
	return strings.Split(u.Path, "/")[2]
}

func pubsubProblem(md map[string]string) string {
	sub, topic := md["subscriptionName"] != "" || md["subscriptionNameFromEnv"] != "", md["topicName"] != "" || md["topicNameFromEnv"] != ""
	if n, _ := strconv.ParseInt(md["subscriptionSize"], 10, 64); n != 0 && topic {
		return "subscriptionSize cannot be used with topicName"
	}
	if sub == topic {
		return "exactly one of metadata.subscriptionName and metadata.topicName is required"
	}
	return ""
}

func serviceBusProblem(md map[string]string) string {
	queue, topic, sub := md["queueName"] != "", md["topicName"] != "", md["subscriptionName"] != ""
	switch {
	case queue && sub:
		return "subscriptionName cannot be used with queueName"
	case queue && topic:
		return "queueName and topicName cannot be used together"
	case topic && !sub:
		return "topicName needs subscriptionName"
	case !queue && !topic:
		return "metadata.queueName or metadata.topicName is required"
	}
	return ""
}

func cloudwatchProblem(md map[string]string) string {
	if md["expression"] != "" {
		return ""
	}
	for _, k := range []string{"namespace", "metricName", "dimensionName", "dimensionValue"} {
		if md[k] == "" {
			return fmt.Sprintf("metadata.%s is required without metadata.expression", k)
		}
	}
	if len(strings.Split(md["dimensionName"], ";")) != len(strings.Split(md["dimensionValue"], ";")) {
		return "dimensionName and dimensionValue differ in length"
	}
	return ""
}

// rabbitMQModeProblem is validateTrigger's reading (rabbitmq_scaler.go):
// values, not the keys' presence, decide, and 0 counts as unset.
func rabbitMQModeProblem(md map[string]string) string {
	ql, value := floatOrZero(md["queueLength"]), floatOrZero(md["value"])
	mode, hasMode := md["mode"]
	switch {
	case ql == 0 && !hasMode && value == 0:
		return ""
	case ql != 0 && (hasMode || value != 0):
		return "queueLength cannot be combined with mode and value"
	case ql != 0:
		return ""
	case !hasMode:
		return "metadata.mode is required"
	case value == 0:
		return "metadata.value is required and non-zero"
	}
	switch mode {
	case "QueueLength", "MessageRate", "DeliverGetRate", "PublishedToDeliveredRatio", "ExpectedQueueConsumptionTime":
	default:
		return fmt.Sprintf("metadata.mode %q is not a RabbitMQ trigger mode", mode)
	}
	return rabbitMQProtocolProblem(md, mode)
}

// rabbitMQProtocolProblem: the protocol (auto: the host's scheme) must be
// known, and every mode but QueueLength needs the HTTP management API.
func rabbitMQProtocolProblem(md map[string]string, mode string) string {
	protocol := md["protocol"]
	if _, ok := md["host"]; !ok && (protocol == "" || protocol == "auto") {
		// The host (from a TriggerAuthentication or the environment) is
		// not known, so neither is the protocol.
		return ""
	}
	if protocol == "" || protocol == "auto" {
		u, err := url.Parse(md["host"])
		if err != nil {
			return "metadata.host does not parse"
		}
		protocol = map[string]string{"amqp": "amqp", "amqps": "amqp", "http": "http", "https": "http"}[u.Scheme]
	}
	switch {
	case protocol != "amqp" && protocol != "http":
		return fmt.Sprintf("protocol %q is not amqp, http or auto with an amqp(s) or http(s) host", md["protocol"])
	case protocol != "http" && mode != "QueueLength":
		return fmt.Sprintf("mode %s needs the HTTP protocol", mode)
	}
	return ""
}

// rabbitMQCanonical rewrites an accepted trigger's legacy queueLength, or
// its absence, into mode and value, as KEDA resolves them.
func rabbitMQCanonical(md map[string]string) {
	if ql := floatOrZero(md["queueLength"]); ql != 0 {
		md["mode"], md["value"] = "QueueLength", md["queueLength"]
	}
	delete(md, "queueLength")
	if _, ok := md["mode"]; !ok {
		delete(md, "value")
	}
}

func floatOrZero(s string) float64 {
	var f float64
	_ = json.Unmarshal([]byte(s), &f)
	return f
}

// cronProblem is cron_scaler.go's Validate: both schedules parse as
// five-field cron expressions (robfig/cron's standard fields) and differ.
func cronProblem(md map[string]string) string {
	for _, k := range []string{"start", "end"} {
		if p := cronSpecProblem(md[k]); p != "" {
			return fmt.Sprintf("metadata.%s %q: %s", k, md[k], p)
		}
	}
	if md["start"] == md["end"] {
		return "metadata.start and metadata.end must differ"
	}
	return ""
}

// cronFields are robfig/cron's bounds for minute, hour, day of month,
// month and day of week, with the names the last two accept.
var cronFields = []struct {
	min, max int
	names    []string
}{
	{0, 59, nil}, {0, 23, nil}, {1, 31, nil},
	{1, 12, []string{"", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{0, 6, []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

func cronSpecProblem(spec string) string {
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		_, spec, _ = strings.Cut(spec, " ")
	}
	if strings.HasPrefix(spec, "@") {
		return "descriptors are not accepted"
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return fmt.Sprintf("expected exactly 5 fields, found %d", len(fields))
	}
	for i, f := range fields {
		for _, r := range strings.Split(f, ",") {
			if !cronRangeOK(r, cronFields[i].min, cronFields[i].max, cronFields[i].names) {
				return fmt.Sprintf("field %q is out of range or malformed", f)
			}
		}
	}
	return ""
}

// cronRangeOK checks one range of a field: * or ?, a value, or a-b, each
// with an optional positive /step.
func cronRangeOK(r string, lo, hi int, names []string) bool {
	rng, step, hasStep := strings.Cut(r, "/")
	if hasStep {
		if n, err := strconv.Atoi(step); err != nil || n <= 0 {
			return false
		}
	}
	if rng == "*" || rng == "?" {
		return true
	}
	a, b, isRange := strings.Cut(rng, "-")
	start, ok := cronValue(a, lo, hi, names)
	if !ok {
		return false
	}
	end := start
	if isRange {
		if end, ok = cronValue(b, lo, hi, names); !ok {
			return false
		}
	}
	return start <= end
}

func cronValue(s string, lo, hi int, names []string) (int, bool) {
	for i, n := range names {
		if n != "" && strings.EqualFold(s, n) {
			return i, true
		}
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || int(n) < lo || int(n) > hi {
		return 0, false
	}
	return int(n), true
}
