// SPDX-License-Identifier: Apache-2.0

// A franz-go (kgo) consumer group on a 4-partition topic, for
// tests/integration/test_franz_group.py, which runs it against kcoord and
// against Kafka 4.4.0 and compares what it prints.
//
//	franz-group -protocol classic|consumer BOOTSTRAP TAG
//
// Member A joins alone and commits what it consumed; member B joins (two
// partitions each, B starting at A's commits); more records, each member
// commits its own; B leaves and A takes every partition again, resuming at
// B's commits; A leaves. The classic group uses kgo's range balancer; the
// consumer group (KIP-848) leaves the assignment to the broker
// (kgo.ServerSideBalancer). It prints one line "franz: OBS" with OBS a JSON
// object of what the client saw (commits, group descriptions, committed
// offsets, every offset each partition delivered), then "franz: OK".
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	partitions = 4
	deadline   = 120 * time.Second
)

var (
	bootstrap string
	topic     string
	group     string
	protocol  string
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "franz: "+format+"\n", args...)
	os.Exit(1)
}

// member is one kgo client in the group, polled by its own goroutine.
type member struct {
	name      string
	cl        *kgo.Client
	mu        sync.Mutex
	assigned  map[int32]bool
	delivered map[int32][]int64
	done      chan struct{}
}

func (m *member) onAssigned(_ context.Context, _ *kgo.Client, a map[string][]int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range a[topic] {
		m.assigned[p] = true
	}
}

func (m *member) onRevoked(_ context.Context, _ *kgo.Client, r map[string][]int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range r[topic] {
		delete(m.assigned, p)
	}
}

func join(name string) *member {
	m := &member{name: name, assigned: map[int32]bool{}, delivered: map[int32][]int64{},
		done: make(chan struct{})}
	opts := []kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID(name),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.OnPartitionsAssigned(m.onAssigned),
		kgo.OnPartitionsRevoked(m.onRevoked),
		kgo.OnPartitionsLost(m.onRevoked),
	}
	if protocol == "consumer" {
		opts = append(opts, kgo.ServerSideBalancer())
	} else {
		opts = append(opts, kgo.SessionTimeout(10*time.Second),
			kgo.HeartbeatInterval(500*time.Millisecond))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fail("%s: %v", name, err)
	}
	m.cl = cl
	go func() {
		defer close(m.done)
		for {
			fs := cl.PollFetches(context.Background())
			if fs.IsClientClosed() {
				return
			}
			fs.EachError(func(t string, p int32, err error) {
				fmt.Fprintf(os.Stderr, "franz: %s: fetch %s[%d]: %v\n", name, t, p, err)
			})
			m.mu.Lock()
			fs.EachRecord(func(r *kgo.Record) {
				m.delivered[r.Partition] = append(m.delivered[r.Partition], r.Offset)
			})
			m.mu.Unlock()
		}
	}()
	return m
}

func (m *member) holding() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []int32
	for p := range m.assigned {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// commit commits what the member polled; returns the offsets it holds
// committed afterwards for its partitions.
func (m *member) commit() map[string]int64 {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := m.cl.CommitUncommittedOffsets(ctx); err != nil {
		fail("%s: commit: %v", m.name, err)
	}
	out := map[string]int64{}
	committed := m.cl.CommittedOffsets()[topic]
	for _, p := range m.holding() {
		out[fmt.Sprint(p)] = committed[p].Offset
	}
	return out
}

func (m *member) leave() {
	m.cl.Close()
	<-m.done
}

// lastSeen: what a waitFor condition saw last, for the failure message.
var lastSeen any

func waitFor(what string, cond func() bool) {
	end := time.Now().Add(deadline)
	lastSeen = nil
	for !cond() {
		if time.Now().After(end) {
			fail("timed out after %v waiting for %s; last seen %v", deadline, what, lastSeen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deliveredThrough: every partition delivered offsets up to end-1.
func deliveredThrough(end int64, ms ...*member) bool {
	top := map[int32]int64{}
	for _, m := range ms {
		m.mu.Lock()
		for p, offs := range m.delivered {
			for _, o := range offs {
				if o+1 > top[p] {
					top[p] = o + 1
				}
			}
		}
		m.mu.Unlock()
	}
	for p := int32(0); p < partitions; p++ {
		if top[p] != end {
			return false
		}
	}
	return true
}

func produce(cl *kgo.Client, from, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var rs []*kgo.Record
	for p := int32(0); p < partitions; p++ {
		for i := from; i < from+n; i++ {
			rs = append(rs, &kgo.Record{Topic: topic, Partition: p,
				Value: []byte(fmt.Sprintf("p%d-%d", p, i))})
		}
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		fail("produce: %v", err)
	}
}

// describe: the group as the admin client sees it, members by client id.
func describe(adm *kadm.Client) map[string]any {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	out := map[string]any{}
	classic, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		fail("DescribeGroups: %v", err)
	}
	g := classic[group]
	members := []string{}
	for _, m := range g.Members {
		n := 0
		if c, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range c.Topics {
				n += len(t.Partitions)
			}
		}
		members = append(members, fmt.Sprintf("%s:%d", m.ClientID, n))
	}
	sort.Strings(members)
	out["DescribeGroups"] = map[string]any{"state": g.State, "protocolType": g.ProtocolType,
		"protocol": g.Protocol, "members": members, "error": fmt.Sprint(g.Err)}
	if protocol == "consumer" {
		cg, err := adm.DescribeConsumerGroups(ctx, group)
		if err != nil {
			fail("DescribeConsumerGroups: %v", err)
		}
		d := cg[group]
		members := []string{}
		for _, m := range d.Members {
			members = append(members, fmt.Sprintf("%s:%d:type%d", m.ClientID,
				len(m.Assignment[topic]), m.MemberType))
		}
		sort.Strings(members)
		out["ConsumerGroupDescribe"] = map[string]any{"state": d.State,
			"assignor": d.AssignorName, "members": members, "error": fmt.Sprint(d.Err)}
	}
	return out
}

func listed(adm *kadm.Client) map[string]int64 {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		fail("FetchOffsets: %v", err)
	}
	out := map[string]int64{}
	r.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic {
			out[fmt.Sprint(o.Partition)] = o.At
		}
	})
	return out
}

func main() {
	flag.StringVar(&protocol, "protocol", "classic", "classic or consumer")
	flag.Parse()
	if flag.NArg() != 2 || (protocol != "classic" && protocol != "consumer") {
		fail("usage: franz-group -protocol classic|consumer BOOTSTRAP TAG")
	}
	bootstrap = flag.Arg(0)
	topic, group = flag.Arg(1)+"-topic", flag.Arg(1)+"-group"

	admCl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		fail("%v", err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		fail("CreateTopic: %v", err)
	}
	cancel()
	produce(admCl, 0, 5)

	obs := map[string]any{}
	a := join("A")
	waitFor("A alone holding every partition, delivering 5 records each", func() bool {
		lastSeen = a.holding()
		return len(a.holding()) == partitions && deliveredThrough(5, a)
	})
	obs["A alone commits"] = a.commit()

	b := join("B")
	waitFor("A and B holding two partitions each", func() bool {
		lastSeen = [][]int32{a.holding(), b.holding()}
		return len(a.holding()) == 2 && len(b.holding()) == 2
	})
	produce(admCl, 5, 3)
	waitFor("8 records of each partition delivered", func() bool {
		return deliveredThrough(8, a, b)
	})
	both := map[string]int64{}
	for _, m := range []*member{a, b} {
		for p, o := range m.commit() {
			both[p] = o
		}
	}
	obs["A and B commit"] = both
	obs["described with A and B"] = describe(adm)
	obs["listed with A and B"] = listed(adm)

	b.leave()
	waitFor("A holding every partition again after B left", func() bool {
		return len(a.holding()) == partitions
	})
	produce(admCl, 8, 2)
	waitFor("10 records of each partition delivered", func() bool {
		return deliveredThrough(10, a)
	})
	obs["A alone again commits"] = a.commit()
	obs["described with A"] = describe(adm)

	delivered := map[string][]int64{}
	for _, m := range []*member{a, b} {
		m.mu.Lock()
		for p, offs := range m.delivered {
			k := fmt.Sprint(p)
			delivered[k] = append(delivered[k], offs...)
		}
		m.mu.Unlock()
	}
	for _, offs := range delivered {
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	}
	obs["delivered"] = delivered
	a.leave()
	waitFor("the group empty once A left", func() bool {
		d := describe(adm)
		obs["described empty"] = d
		lastSeen = d
		view := "DescribeGroups"
		if protocol == "consumer" {
			view = "ConsumerGroupDescribe"
		}
		return d[view].(map[string]any)["state"] == "Empty"
	})
	obs["listed empty"] = listed(adm)

	js, err := json.Marshal(obs)
	if err != nil {
		fail("%v", err)
	}
	fmt.Printf("franz: %s\nfranz: OK\n", js)
}
