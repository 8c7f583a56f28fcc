package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

func TestRejectTopicsNetworkGroup(t *testing.T) {
	const head = "duration: 2m\nmembers: [{id: c1}]\n"
	checkRejections(t, []rejection{
		{"zero partitions", head + "topics:\n  - {name: orders, partitions: 0}\n", "t.yaml:4:32",
			[]string{"partitions must be at least 1, found 0"}},
		{"partitions beyond int32", head + "topics:\n  - {name: orders, partitions: 3000000000}\n", "t.yaml:4:32",
			[]string{"partitions must be a whole number from -2,147,483,648 to 2,147,483,647"}},
		{"too many partitions in total", head + "topics:\n  - {name: a, partitions: 1500000}\n  - {name: b, partitions: 600000}\n", "t.yaml:4:3",
			[]string{"2,100,000 partitions in total; the limit is 2,000,000"}},
		{"topic without partitions", head + "topics:\n  - {name: orders}\n", "t.yaml:4:5",
			[]string{`topic "orders" has no partitions:`}},
		{"topic without name", head + "topics:\n  - {partitions: 3}\n", "t.yaml:4:5",
			[]string{"topic has no name:"}},
		{"duplicate topic", head + "topics:\n  - {name: orders, partitions: 3}\n  - {name: orders, partitions: 4}\n", "t.yaml:5:12",
			[]string{`topic "orders" is declared twice (first as topics[0])`}},
		{"bad topic name", head + "topics:\n  - {name: \"my topic\", partitions: 3}\n", "t.yaml:4:12",
			[]string{`topic name "my topic" has the character ' '`, "letters, digits"}},
		{"negative rate", head + "topics:\n  - {name: orders, partitions: 3, rate: -5}\n", "t.yaml:4:41",
			[]string{"rate must be a non-negative number of records per second per partition, found -5"}},
		{"topics is a mapping", head + "topics:\n  orders: 12\n", "t.yaml:4:3",
			[]string{"topics must be a list such as [{name: orders, partitions: 12}], found a mapping"}},
		{"topic is a string", head + "topics: [orders]\n", "t.yaml:3:10",
			[]string{"topic must be a mapping of keys to values", `found the string "orders"`}},
		{"latency as a bare number", base + "network: {latency: 2}\n", "t.yaml:4:20",
			[]string{"latency is a duration and needs a unit: write 2s, not 2"}},
		{"unknown latency distribution", base + "network:\n  latency: {dist: lognormol, median: 2ms, p99: 20ms}\n", "t.yaml:5:19",
			[]string{`unknown latency dist "lognormol"; did you mean "lognormal"? (allowed: constant, uniform, lognormal)`}},
		{"latency without dist", base + "network:\n  latency: {median: 2ms}\n", "t.yaml:5:12",
			[]string{"latency has no dist:"}},
		{"parameter of another distribution", base + "network:\n  latency: {dist: uniform, min: 1ms, max: 3ms, p99: 9ms}\n", "t.yaml:5:48",
			[]string{"p99 is not a parameter of the uniform distribution, which takes min and max"}},
		{"missing parameter", base + "network:\n  latency: {dist: lognormal, median: 2ms}\n", "t.yaml:5:12",
			[]string{"the lognormal latency distribution needs median and p99"}},
		{"uniform max below min", base + "network:\n  latency: {dist: uniform, min: 5ms, max: 1ms}\n", "t.yaml:5:43",
			[]string{"uniform latency max 1ms is below min 5ms"}},
		{"lognormal p99 below median", base + "network:\n  latency: {dist: lognormal, median: 5ms, p99: 1ms}\n", "t.yaml:5:48",
			[]string{"lognormal latency p99 1ms is below its median 5ms"}},
		{"negative latency", base + "network: {latency: -2ms}\n", "t.yaml:4:20",
			[]string{"latency must not be negative, found -2ms"}},
		{"unknown key in network", base + "network: {latncy: 2ms}\n", "t.yaml:4:11",
			[]string{`unknown key "latncy" in network; did you mean "latency"?`}},
		{"unknown protocol", base + "protocols: [eager, coperative]\n", "t.yaml:4:20",
			[]string{`unknown protocol "coperative"; did you mean "cooperative"? (allowed: eager, cooperative, nextgen)`}},
		{"empty protocols", base + "protocols: []\n", "t.yaml:4:12",
			[]string{"protocols must name at least one protocol"}},
		{"duplicate protocol", base + "protocols: [eager, eager]\n", "t.yaml:4:20",
			[]string{"protocol eager is listed twice"}},
		{"protocols as a string", base + "protocols: eager\n", "t.yaml:4:12",
			[]string{"protocols must be a list such as [a, b]", `found the string "eager"`}},
		{"unknown client assignor", base + "defaults:\n  assignors: [rnage]\n", "t.yaml:5:15",
			[]string{`unknown assignor "rnage" in assignors; did you mean "range"? (client assignors: range, roundrobin, sticky, cooperative-sticky)`}},
		{"server assignor on a client", base + "defaults:\n  assignors: [range, uniform]\n", "t.yaml:5:22",
			[]string{"uniform is a server assignor of the consumer protocol", "remote_assignor"}},
		{"no assignors", base + "defaults:\n  assignors: []\n", "t.yaml:5:14",
			[]string{"assignors must name at least one assignor"}},
		{"duplicate assignor", base + "defaults:\n  assignors: [range, range]\n", "t.yaml:5:22",
			[]string{`assignor "range" is listed twice in assignors`}},
		{"assignors as a string", base + "defaults:\n  assignors: range\n", "t.yaml:5:14",
			[]string{"assignors must be a list such as [a, b]"}},
		{"unknown remote assignor", base + "defaults:\n  remote_assignor: unifrom\n", "t.yaml:5:20",
			[]string{`unknown remote_assignor "unifrom"; did you mean "uniform"? (server assignors: uniform, range)`}},
		{"client assignor as group assignor", base + "group:\n  assignor: cooperative-sticky\n", "t.yaml:5:13",
			[]string{`group.assignor "cooperative-sticky" is a client assignor of the classic protocol`}},
		{"unknown group protocol", base + "defaults:\n  group_protocol: kip848\n", "t.yaml:5:19",
			[]string{`unknown group_protocol "kip848"`, "(allowed: classic, consumer)"}},
		{"unknown migration policy", base + "group:\n  migration_policy: upgrde\n", "t.yaml:5:21",
			[]string{`unknown migration_policy "upgrde"; did you mean "upgrade"?`, "bidirectional, upgrade, downgrade, disabled"}},
		{"bad group instance id", base + "defaults:\n  group_instance_id: \"a/b\"\n", "t.yaml:5:22",
			[]string{`group_instance_id "a/b" has the character '/'`}},
		{"group session timeout zero", base + "group:\n  session_timeout: 0s\n", "t.yaml:5:20",
			[]string{"group.session_timeout must be positive, found 0s"}},
		{"group max size negative", base + "group:\n  max_size: -1\n", "t.yaml:5:13",
			[]string{"group.max_size must not be negative (0 means unlimited), found -1"}},
		{"group heartbeat not below session", base + "group:\n  heartbeat_interval: 45s\n", "t.yaml:5:23",
			[]string{"group.heartbeat_interval 45s must be less than group.session_timeout 45s"}},
		{"group min session above max", base + "group:\n  min_session_timeout: 1h\n", "t.yaml:5:24",
			[]string{"group.min_session_timeout 1h exceeds group.max_session_timeout 30m"}},
		{"group is a list", base + "group: [uniform]\n", "t.yaml:4:8",
			[]string{"group must be a mapping of keys to values, found a list"}},
	})
}

func TestRejectTimeouts(t *testing.T) {
	checkRejections(t, []rejection{
		{"heartbeat not below session in defaults", base + "defaults:\n  session_timeout: 10s\n  heartbeat_interval: 10s\n", "t.yaml:6:23",
			[]string{"heartbeat_interval 10s must be less than session_timeout 10s", "refuses to start"}},
		{"session below Kafka's default heartbeat", base + "defaults:\n  session_timeout: 2s\n", "t.yaml:5:20",
			[]string{"heartbeat_interval 3s (Kafka's default) must be less than session_timeout 2s"}},
		{"member against defaults", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\ndefaults: {heartbeat_interval: 5s}\nmembers:\n  - {id: c1, session_timeout: 4s}\n", "t.yaml:5:31",
			[]string{"heartbeat_interval 5s (defaults) must be less than session_timeout 4s"}},
		{"restart patch against member", base + "events:\n  - {at: 1m, restart: {member: c2, set: {heartbeat_interval: 50s}}}\n", "t.yaml:5:62",
			[]string{"heartbeat_interval 50s must be less than session_timeout 45s (Kafka's default) for member c2"}},
		{"rolling patch reported once", base + "events:\n  - {at: 1m, rolling_restart: {members: all, interval: 5s, set: {session_timeout: 1s}}}\n", "t.yaml:5:83",
			[]string{"heartbeat_interval 3s (Kafka's default) must be less than session_timeout 1s for member c1"}},
	})
}

func TestRejectMembers(t *testing.T) {
	const head = "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers:\n"
	checkRejections(t, []rejection{
		{"members is a mapping", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: {id: c1}\n", "t.yaml:3:10",
			[]string{`members must be a list such as [{id: c1}, {count: 3, id: "c{i}"}], found a mapping`}},
		{"member written as a bare id", head + "  - c1\n", "t.yaml:4:5",
			[]string{`each member must be a mapping such as {id: c1}, found the string "c1"`}},
		{"member without id", head + "  - {start: 5s}\n", "t.yaml:4:5",
			[]string{"member has no id:"}},
		{"duplicate member id", head + "  - {id: c1}\n  - {id: c1}\n", "t.yaml:5:10",
			[]string{`member id "c1" is declared twice (first on line 4)`}},
		{"duplicate id from a count", head + "  - {count: 3, id: \"c{i}\"}\n  - {id: c2}\n", "t.yaml:5:10",
			[]string{`member id "c2" is declared twice (first on line 4)`}},
		{"count without placeholder", head + "  - {count: 3, id: c}\n", "t.yaml:4:20",
			[]string{`id "c" has no {i} placeholder, so all 3 members of this entry would be named "c"`}},
		{"placeholder without count", head + "  - {id: \"c{i}\"}\n", "t.yaml:4:10",
			[]string{`id "c{i}" has the {i} placeholder but no count:`}},
		{"from without count", head + "  - {id: c1, from: 2}\n", "t.yaml:4:14",
			[]string{"from: numbers the members of a count: entry"}},
		{"count zero", head + "  - {count: 0, id: \"c{i}\"}\n", "t.yaml:4:13",
			[]string{"count must be a whole number from 1 to 100,000, found 0"}},
		{"count beyond the limit", head + "  - {count: 100001, id: \"c{i}\"}\n", "t.yaml:4:13",
			[]string{"count must be a whole number from 1 to 100,000, found 100001"}},
		{"count absurdly large", head + "  - {count: 99999999999999999999999, id: \"c{i}\"}\n", "t.yaml:4:13",
			[]string{"count must be a whole number from 1 to 100,000"}},
		{"members beyond the limit in total", head + "  - {count: 60000, id: \"a{i}\"}\n  - {count: 60000, id: \"b{i}\"}\n", "t.yaml:5:13",
			[]string{"the scenario declares more than 100,000 members, the limit"}},
		{"id with a space", head + "  - {id: \"c 1\"}\n", "t.yaml:4:10",
			[]string{`member id "c 1" has the character ' '`}},
		{"id all is reserved", head + "  - {id: all}\n", "t.yaml:4:10",
			[]string{"all is reserved"}},
		{"id too long", head + "  - {id: " + strings.Repeat("c", 300) + "}\n", "t.yaml:4:10",
			[]string{"is longer than 249 characters"}},
		{"start of a count entry at the horizon, reported once", head + "  - {count: 3, id: \"c{i}\", start: 3m}\n", "t.yaml:4:35",
			[]string{"start 3m is at or after the 2m horizon"}},
		{"start at the horizon", head + "  - {id: c1}\n  - {id: c2, start: 2m}\n", "t.yaml:5:21",
			[]string{"start 2m is at or after the 2m horizon (duration), so the member would never run"}},
		{"negative start", head + "  - {id: c1, start: -5s}\n", "t.yaml:4:21",
			[]string{"start must not be negative, found -5s"}},
		{"subscription to an unknown topic", head + "  - {id: c1, subscription: [ordres]}\n", "t.yaml:4:29",
			[]string{`subscription names unknown topic "ordres"; did you mean "orders"?`}},
		{"subscription listed twice", head + "  - {id: c1, subscription: [orders, orders]}\n", "t.yaml:4:37",
			[]string{`topic "orders" is listed twice in subscription`}},
		{"defaults subscribe to an unknown topic", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\ndefaults: {subscription: [payments]}\nmembers: [{id: c1}]\n", "t.yaml:3:27",
			[]string{`subscription names unknown topic "payments" (topics: orders)`}},
		{"subscription as a mapping", head + "  - {id: c1, subscription: {orders: 1}}\n", "t.yaml:4:28",
			[]string{"subscription must be a list such as [a, b], found a mapping"}},
	})
}

func TestRejectEvents(t *testing.T) {
	ev := func(lines ...string) string { return base + "events:\n" + strings.Join(lines, "\n") + "\n" }
	checkRejections(t, []rejection{
		{"unknown member with suggestion", ev("  - {at: 60s, crash: c9}"), "t.yaml:5:22",
			[]string{`crash names unknown member "c9"; did you mean "c1"?`}},
		{"unknown member in a list", ev("  - {at: 60s, leave: [c1, cx2]}"), "t.yaml:5:27",
			[]string{`leave names unknown member "cx2"; did you mean "c2"?`}},
		{"unknown member in a pause", ev("  - at: 60s", "    pause: {member: worker-1, for: 5s}"), "t.yaml:6:21",
			[]string{`pause names unknown member "worker-1"`}},
		{"member named twice", ev("  - {at: 60s, crash: [c1, c1]}"), "t.yaml:5:27",
			[]string{"crash names member c1 twice"}},
		{"start of an undeclared member", ev("  - {at: 60s, start: c5}"), "t.yaml:5:22",
			[]string{`start names unknown member "c5"`}},
		{"event at the horizon", ev("  - {at: 2m, crash: c1}"), "t.yaml:5:10",
			[]string{"crash at 2m is at or after the 2m horizon (duration), so it would never happen"}},
		{"event after the horizon", ev("  - {at: 5m, crash: c1}"), "t.yaml:5:10",
			[]string{"crash at 5m is at or after the 2m horizon"}},
		{"negative time", ev("  - {at: -1s, crash: c1}"), "t.yaml:5:10",
			[]string{"at must not be negative, found -1s"}},
		{"bare number time", ev("  - {at: 60, crash: c1}"), "t.yaml:5:10",
			[]string{"at is a duration and needs a unit: write 60s, not 60"}},
		{"event without a kind", ev("  - {at: 60s}"), "t.yaml:5:5",
			[]string{"event has no kind; add one of crash, leave, start"}},
		{"event without at", ev("  - {crash: c1}"), "t.yaml:5:5",
			[]string{"event has no at:; write {at: 60s, crash: c2}"}},
		{"event with two kinds", ev("  - {at: 60s, crash: c1, leave: c2}"), "t.yaml:5:26",
			[]string{"event has two kinds, crash and leave; write one event for each"}},
		{"events is a mapping", base + "events:\n  crash: c1\n", "t.yaml:5:3",
			[]string{"events must be a list such as [{at: 60s, crash: c2}], found a mapping"}},
		{"all inside a list", ev("  - {at: 60s, crash: [c1, all]}"), "t.yaml:5:27",
			[]string{"all stands alone: write crash: all, not a list that contains it"}},
		{"targets as a mapping", ev("  - {at: 60s, crash: {member: c1}}"), "t.yaml:5:22",
			[]string{"crash takes a member id, a list of ids or all, found a mapping"}},
		{"empty target list", ev("  - {at: 60s, crash: []}"), "t.yaml:5:22",
			[]string{"crash names no members"}},
		{"pause without for", ev("  - {at: 60s, pause: {member: c1}}"), "t.yaml:5:22",
			[]string{"pause has no for:; write {at: 90s, pause: {member: c3, for: 12s}}"}},
		{"pause as a bare id", ev("  - {at: 60s, pause: c1}"), "t.yaml:5:22",
			[]string{`pause must be a mapping such as {at: 90s, pause: {member: c3, for: 12s}}, found the string "c1"`}},
		{"stall for zero", ev("  - {at: 60s, stall: {member: c1, for: 0s}}"), "t.yaml:5:40",
			[]string{"for must be positive, found 0s"}},
		{"network partition for a negative time", ev("  - {at: 60s, network_partition: {members: [c1], for: -1s}}"), "t.yaml:5:55",
			[]string{"for must be positive, found -1s"}},
		{"restart names member and members", ev("  - {at: 60s, restart: {member: c1, members: [c2]}}"), "t.yaml:5:37",
			[]string{"restart has both member: and members:; use one"}},
		{"restart names nobody", ev("  - {at: 60s, restart: {down: 5s}}"), "t.yaml:5:24",
			[]string{"restart has no members:; write {at: 60s, restart: {member: c2, down: 10s}}"}},
		{"restart down negative", ev("  - {at: 60s, restart: {member: c1, down: -5s}}"), "t.yaml:5:43",
			[]string{"down must not be negative, found -5s"}},
		{"restart set is a list", ev("  - {at: 60s, restart: {member: c1, set: [a]}}"), "t.yaml:5:42",
			[]string{"set must be a mapping of keys to values, found a list"}},
		{"restart set unknown key", ev("  - {at: 60s, restart: {member: c1, set: {asignors: [range]}}}"), "t.yaml:5:43",
			[]string{`unknown key "asignors" in set; did you mean "assignors"?`}},
		{"rolling restart without interval", ev("  - {at: 60s, rolling_restart: {members: all}}"), "t.yaml:5:32",
			[]string{"rolling_restart has no interval:"}},
		{"rolling restart negative interval", ev("  - {at: 60s, rolling_restart: {members: all, interval: -1s}}"), "t.yaml:5:57",
			[]string{"interval must not be negative, found -1s"}},
		{"graceful is not a bool", ev("  - {at: 60s, restart: {member: c1, graceful: maybe}}"), "t.yaml:5:47",
			[]string{"graceful must be true or false"}},
		{"add_partitions does not grow", ev("  - {at: 60s, add_partitions: {topic: orders, partitions: 12}}"), "t.yaml:5:59",
			[]string{"add_partitions must grow topic orders: it has 12 partitions by 1m, and Kafka cannot shrink a topic; found 12"}},
		{"add_partitions shrinks after growth", ev("  - {at: 30s, add_partitions: {topic: orders, partitions: 20}}", "  - {at: 60s, add_partitions: {topic: orders, partitions: 16}}"), "t.yaml:6:59",
			[]string{"it has 20 partitions by 1m"}},
		{"add_partitions to an unknown topic", ev("  - {at: 60s, add_partitions: {topic: ordrs, partitions: 20}}"), "t.yaml:5:39",
			[]string{`add_partitions names unknown topic "ordrs"; did you mean "orders"?`}},
		{"add_partitions past the limit", ev("  - {at: 60s, add_partitions: {topic: orders, partitions: 2000001}}"), "t.yaml:5:59",
			[]string{"this growth brings the topics to 2,000,001 partitions in total; the limit is 2,000,000"}},
		{"add_partitions without topic", ev("  - {at: 60s, add_partitions: {partitions: 20}}"), "t.yaml:5:31",
			[]string{"add_partitions has no topic:"}},
		{"subscribe to an unknown topic", ev("  - {at: 60s, subscribe: {members: [c1], topics: [orders, paymnts]}}"), "t.yaml:5:59",
			[]string{`subscribe names unknown topic "paymnts"`}},
		{"subscribe to nothing", ev("  - {at: 60s, subscribe: {members: [c1], topics: []}}"), "t.yaml:5:50",
			[]string{"subscribe needs at least one topic; to stop a member, use leave"}},
	})
}

func TestRejectEventActionsLimit(t *testing.T) {
	src := "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{count: 60000, id: \"c{i}\"}]\nevents:\n" +
		"  - {at: 10s, rolling_restart: {members: all, interval: 1ms}}\n" +
		"  - {at: 20s, rolling_restart: {members: all, interval: 1ms}}\n"
	checkRejections(t, []rejection{
		{"all twice over 60,000 members", src, "t.yaml:6:42",
			[]string{"the events act on more than 100,000 members in total, the limit"}},
	})
}

func TestRejectExpectations(t *testing.T) {
	checkRejections(t, []rejection{
		{"unknown metric with suggestion", base + "expect:\n  - {max_moved_partition: 3}\n", "t.yaml:5:6",
			[]string{`unknown key "max_moved_partition" in expectation; did you mean "max_moved_partitions"?`}},
		{"duration for a seconds metric", base + "expect:\n  - {max_convergence_seconds: 30s}\n", "t.yaml:5:31",
			[]string{"max_convergence_seconds is a number of seconds: write 30, not 30s"}},
		{"protocol the scenario does not run", base + "protocols: [eager]\nexpect:\n  - {protocols: [nextgen], no_double_ownership: true}\n", "t.yaml:6:18",
			[]string{"protocol nextgen is not among the scenario's protocols (eager)"}},
		{"unknown protocol", base + "expect:\n  - {protocols: [coop], no_double_ownership: true}\n", "t.yaml:5:18",
			[]string{`unknown protocol "coop"`}},
		{"checks nothing", base + "expect:\n  - {protocols: [eager]}\n", "t.yaml:5:5",
			[]string{"the expectation checks nothing"}},
		{"negative bound", base + "expect:\n  - {max_rebalances: -1}\n", "t.yaml:5:22",
			[]string{"max_rebalances must be a non-negative number, found -1"}},
		{"min above max", base + "expect:\n  - {max_rebalances: 2, min_rebalances: 5}\n", "t.yaml:5:41",
			[]string{"min_rebalances 5 exceeds max_rebalances 2, so the expectation can never hold"}},
		{"bound is not a number", base + "expect:\n  - {max_rebalances: few}\n", "t.yaml:5:22",
			[]string{"max_rebalances must be a number", `"few"`}},
		{"converged_within negative", base + "expect:\n  - {converged_within: -1s}\n", "t.yaml:5:24",
			[]string{"converged_within must not be negative"}},
		{"no_double_ownership not a bool", base + "expect:\n  - {no_double_ownership: 1}\n", "t.yaml:5:27",
			[]string{"no_double_ownership must be true or false, found the number 1"}},
		// A declared hazard names the protocols it is known for and
		// shows itself with a positive lower bound.
		{"hazard without protocols", base + "expect:\n  - {no_double_ownership: false, min_double_ownership_seconds: 1}\n", "t.yaml:5:27",
			[]string{"no_double_ownership: false declares a known hazard of some protocols; name them with protocols:"}},
		{"hazard not shown", base + "expect:\n  - {protocols: [eager], no_double_ownership: false}\n", "t.yaml:5:47",
			[]string{"no_double_ownership: false must show the hazard it declares: add min_double_ownership_seconds with a positive value"}},
		{"expect is a mapping", base + "expect:\n  no_double_ownership: true\n", "t.yaml:5:3",
			[]string{"expect must be a list such as [{no_double_ownership: true}], found a mapping"}},
	})
}

// TestRejectAliases covers documents that are small but expand to a huge
// or infinite graph through anchors and aliases.
func TestRejectAliases(t *testing.T) {
	// Ten levels of ten aliases each: 10^10 values if anything expanded them.
	var laughs strings.Builder
	laughs.WriteString("x-laughs:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&laughs, "  a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	checkRejections(t, []rejection{
		// Anchors under an unknown key are reported, never walked.
		{"billion laughs under an unknown key", base + laughs.String(), "t.yaml:4:1", []string{`unknown key "x-laughs"`}},
		{"self-containing anchor", base + "defaults: &d {subscription: *d}\n", "t.yaml:4:11",
			[]string{"subscription must be a list such as [a, b], found a mapping"}},
		{"self-containing list", base + "events: &e [*e]\n", "t.yaml:4:9",
			[]string{"event must be a mapping of keys to values, found a list"}},
		{"alias before its anchor", base + "defaults: {subscription: *s}\n", "t.yaml:4:26",
			[]string{"invalid YAML: unknown anchor 's' referenced"}},
		{"merge of an alias", base + "defaults: &d {session_timeout: 10s}\ngroup: {<<: *d}\n", "t.yaml:5:9",
			[]string{"merge keys (<<) are not supported"}},
	})

	// Aliases used where values belong are walked each time they are used;
	// the walk is bounded however they are combined. Here 5,000 aliases of a
	// member each bring a 1,000-topic subscription along: 5,000,000 values
	// from a 30 KB file.
	var bomb strings.Builder
	bomb.WriteString(base[:len(base)-len("members: [{count: 3, id: \"c{i}\"}]\n")])
	bomb.WriteString("defaults: {subscription: &s [" + strings.TrimSuffix(strings.Repeat("orders, ", 1000), ", ") + "]}\n")
	bomb.WriteString("members:\n  - &m {id: c1, subscription: *s}\n")
	bomb.WriteString(strings.Repeat("  - *m\n", 5000))
	_, err := Parse("t.yaml", []byte(bomb.String()))
	if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:") ||
		!strings.Contains(err.Error(), "the document expands to more than 4,000,000 values through its aliases") {
		t.Errorf("alias bomb: got %v; want the 4,000,000 values limit", err)
	}
}
