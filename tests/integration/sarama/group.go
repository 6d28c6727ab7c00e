// SPDX-License-Identifier: Apache-2.0

// Command group runs a 2-member sarama consumer group against a broker: both
// members share a 4-partition topic, every record is consumed exactly once
// and committed, then one member leaves and the other takes over all
// partitions.
//
// Usage: group [-version 0.10.2.0|...|4.3.1] [-name NAME] HOST:PORT (exits 0
// and prints "sarama: OK" on success); -version is the protocol generation
// the group members speak, the producer and admin checks always speak 2.0;
// the topic and the group are NAME-orders and NAME-group (NAME: sarama).
// Every wait polls a condition with a generous deadline; nothing sleeps for a
// fixed time to let something happen.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

const (
	partitions = 4
	perPhase   = 200
	waitFor    = 90 * time.Second
)

// topic and group are named after the -name flag; groupVersion is the
// protocol generation the group members speak (-version flag); the producer
// and the admin checks always speak adminVersion.
var (
	topic        = "sarama-orders"
	group        = "sarama-group"
	groupVersion = sarama.V2_0_0_0
	adminVersion = sarama.V2_0_0_0
)

func config(v sarama.KafkaVersion) *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "kcoord-sarama"
	c.Version = v
	c.Net.DialTimeout = 10 * time.Second
	c.Net.ReadTimeout = 30 * time.Second
	c.Metadata.Retry.Max = 10
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.CommitInterval = 100 * time.Millisecond
	c.Consumer.MaxWaitTime = 200 * time.Millisecond
	c.Consumer.Return.Errors = true
	c.Consumer.Group.Session.Timeout = 10 * time.Second
	c.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	c.Consumer.Group.Rebalance.Timeout = 20 * time.Second
	c.Consumer.Group.Rebalance.Retry.Max = 10
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.Return.Successes = true
	return c
}

// member is one consumer group member: its latest claims (from Setup), the
// number of sessions it started and the values it consumed and marked.
type member struct {
	name     string
	cg       sarama.ConsumerGroup
	mu       sync.Mutex
	claims   []int32
	sessions int
	consumed map[string]int
	parts    map[int32]bool
	errs     []error
	cancel   context.CancelFunc
	done     chan struct{}
}

func (m *member) Setup(s sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claims = append([]int32(nil), s.Claims()[topic]...)
	sort.Slice(m.claims, func(i, j int) bool { return m.claims[i] < m.claims[j] })
	m.sessions++
	return nil
}

func (m *member) Cleanup(sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claims = nil
	return nil
}

func (m *member) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for msg := range c.Messages() {
		s.MarkMessage(msg, "")
		m.mu.Lock()
		m.consumed[string(msg.Value)]++
		m.parts[msg.Partition] = true
		m.mu.Unlock()
	}
	return nil
}

func startMember(name, bootstrap string) (*member, error) {
	cg, err := sarama.NewConsumerGroup([]string{bootstrap}, group, config(groupVersion))
	if err != nil {
		return nil, err
	}
	m := &member{name: name, cg: cg, consumed: map[string]int{}, parts: map[int32]bool{},
		done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go func() {
		for e := range cg.Errors() {
			m.mu.Lock()
			m.errs = append(m.errs, e)
			m.mu.Unlock()
		}
	}()
	go func() {
		defer close(m.done)
		// Consume returns at every rebalance; loop until the member is stopped.
		for ctx.Err() == nil {
			if err := cg.Consume(ctx, []string{topic}, m); err != nil && ctx.Err() == nil {
				m.mu.Lock()
				m.errs = append(m.errs, err)
				m.mu.Unlock()
			}
		}
	}()
	return m, nil
}

// stop ends the member's session (its marked offsets are committed) and
// closes the group client, which sends LeaveGroup.
func (m *member) stop() error {
	m.cancel()
	<-m.done
	return m.cg.Close()
}

func (m *member) snapshot() ([]int32, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int32(nil), m.claims...), m.sessions
}

func wait(what string, cond func() bool, state func() string) error {
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s; last seen: %s", waitFor, what, state())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

func splitCovers(ms ...*member) bool {
	seen := map[int32]bool{}
	for _, m := range ms {
		c, _ := m.snapshot()
		if len(c) == 0 {
			return false
		}
		for _, p := range c {
			if seen[p] {
				return false
			}
			seen[p] = true
		}
	}
	return len(seen) == partitions
}

func claimsState(ms ...*member) func() string {
	return func() string {
		s := ""
		for _, m := range ms {
			c, n := m.snapshot()
			m.mu.Lock()
			s += fmt.Sprintf("%s: claims %v sessions %d consumed %d errors %v; ", m.name, c, n,
				len(m.consumed), m.errs)
			m.mu.Unlock()
		}
		return s
	}
}

func produce(p sarama.SyncProducer, phase string) error {
	msgs := make([]*sarama.ProducerMessage, 0, perPhase)
	for i := 0; i < perPhase; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: int32(i % partitions),
			Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("%s-%d", phase, i))})
	}
	return p.SendMessages(msgs)
}

// checkExactlyOnce: every value of the phases consumed once in total, nothing else.
func checkExactlyOnce(phases []string, ms ...*member) error {
	total := map[string]int{}
	for _, m := range ms {
		m.mu.Lock()
		for v, n := range m.consumed {
			total[v] += n
		}
		m.mu.Unlock()
	}
	for v, n := range total {
		if n != 1 {
			return fmt.Errorf("value %s consumed %d times", v, n)
		}
	}
	for _, ph := range phases {
		for i := 0; i < perPhase; i++ {
			if total[fmt.Sprintf("%s-%d", ph, i)] != 1 {
				return fmt.Errorf("value %s-%d never consumed", ph, i)
			}
		}
	}
	if len(total) != len(phases)*perPhase {
		return fmt.Errorf("consumed %d distinct values, want %d", len(total), len(phases)*perPhase)
	}
	return nil
}

func consumedCount(ms ...*member) int {
	n := 0
	for _, m := range ms {
		m.mu.Lock()
		n += len(m.consumed)
		m.mu.Unlock()
	}
	return n
}

// committedAtEnd: the group's committed offset of every partition equals its log end.
func committedAtEnd(client sarama.Client, admin sarama.ClusterAdmin) (bool, string) {
	resp, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1, 2, 3}})
	if err != nil {
		return false, err.Error()
	}
	s := ""
	ok := true
	for p := int32(0); p < partitions; p++ {
		end, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			return false, err.Error()
		}
		blk := resp.GetBlock(topic, p)
		if blk == nil || blk.Err != sarama.ErrNoError || blk.Offset != end {
			ok = false
		}
		if blk != nil {
			s += fmt.Sprintf("p%d committed %d end %d; ", p, blk.Offset, end)
		}
	}
	return ok, s
}

// waitGroupState waits until DescribeGroups shows the group in state with n members.
func waitGroupState(admin sarama.ClusterAdmin, state string, n int) error {
	last := ""
	return wait(fmt.Sprintf("DescribeGroups to show %s with %d members", state, n), func() bool {
		groups, err := admin.DescribeConsumerGroups([]string{group})
		if err != nil || len(groups) != 1 {
			last = fmt.Sprintf("error %v", err)
			return false
		}
		last = fmt.Sprintf("%s with %d members", groups[0].State, len(groups[0].Members))
		return groups[0].State == state && len(groups[0].Members) == n
	}, func() string { return last })
}

func run(bootstrap string) error {
	cfg := config(adminVersion)
	client, err := sarama.NewClient([]string{bootstrap}, cfg)
	if err != nil {
		return fmt.Errorf("client: %v", err)
	}
	defer client.Close()
	admin, err := sarama.NewClusterAdmin([]string{bootstrap}, cfg)
	if err != nil {
		return fmt.Errorf("admin: %v", err)
	}
	defer admin.Close()
	if err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: partitions, ReplicationFactor: 1}, false); err != nil {
		return fmt.Errorf("CreateTopic: %v", err)
	}
	if err := wait("the topic's metadata", func() bool {
		if client.RefreshMetadata(topic) != nil {
			return false
		}
		ps, err := client.Partitions(topic)
		return err == nil && len(ps) == partitions
	}, func() string { return "" }); err != nil {
		return err
	}
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		return fmt.Errorf("producer: %v", err)
	}
	defer producer.Close()

	a, err := startMember("a", bootstrap)
	if err != nil {
		return err
	}
	if err := wait("member a alone to own all partitions", func() bool {
		c, _ := a.snapshot()
		return len(c) == partitions
	}, claimsState(a)); err != nil {
		return err
	}
	b, err := startMember("b", bootstrap)
	if err != nil {
		return err
	}
	if err := wait("a and b to split the partitions", func() bool { return splitCovers(a, b) },
		claimsState(a, b)); err != nil {
		return err
	}

	// Phase 1: both members consume, each record once.
	if err := produce(producer, "p1"); err != nil {
		return fmt.Errorf("produce p1: %v", err)
	}
	if err := wait("phase 1 records consumed", func() bool { return consumedCount(a, b) >= perPhase },
		claimsState(a, b)); err != nil {
		return err
	}
	if err := checkExactlyOnce([]string{"p1"}, a, b); err != nil {
		return err
	}
	for _, m := range []*member{a, b} {
		claims, _ := m.snapshot()
		m.mu.Lock()
		parts := len(m.parts)
		for p := range m.parts {
			found := false
			for _, c := range claims {
				found = found || c == p
			}
			if !found {
				m.mu.Unlock()
				return fmt.Errorf("member %s consumed unclaimed partition %d", m.name, p)
			}
		}
		m.mu.Unlock()
		if parts == 0 {
			return fmt.Errorf("member %s consumed nothing", m.name)
		}
	}
	last := ""
	if err := wait("committed offsets to reach the log end", func() bool {
		ok, s := committedAtEnd(client, admin)
		last = s
		return ok
	}, func() string { return last }); err != nil {
		return err
	}
	if err := waitGroupState(admin, "Stable", 2); err != nil {
		return err
	}

	// b leaves; a takes over every partition from b's committed offsets.
	_, before := a.snapshot()
	if err := b.stop(); err != nil {
		return fmt.Errorf("closing b: %v", err)
	}
	if err := wait("a to take over all partitions after b left", func() bool {
		c, n := a.snapshot()
		return n > before && len(c) == partitions
	}, claimsState(a)); err != nil {
		return err
	}
	if err := produce(producer, "p2"); err != nil {
		return fmt.Errorf("produce p2: %v", err)
	}
	if err := wait("phase 2 records consumed", func() bool { return consumedCount(a, b) >= 2*perPhase },
		claimsState(a, b)); err != nil {
		return err
	}
	if err := checkExactlyOnce([]string{"p1", "p2"}, a, b); err != nil {
		return err
	}
	if err := wait("committed offsets to reach the log end again", func() bool {
		ok, s := committedAtEnd(client, admin)
		last = s
		return ok
	}, func() string { return last }); err != nil {
		return err
	}
	if err := a.stop(); err != nil {
		return fmt.Errorf("closing a: %v", err)
	}
	return waitGroupState(admin, "Empty", 0)
}

func main() {
	version := flag.String("version", groupVersion.String(), "Kafka version the group members speak")
	name := flag.String("name", "sarama", "prefix of the topic's and the group's names")
	flag.Parse()
	topic, group = *name+"-orders", *name+"-group"
	v, err := sarama.ParseKafkaVersion(*version)
	if err != nil || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: group [-version X.Y.Z] [-name NAME] HOST:PORT")
		os.Exit(2)
	}
	groupVersion = v
	if err := run(flag.Arg(0)); err != nil {
		fmt.Fprintf(os.Stderr, "sarama: FAIL: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("sarama: OK")
}
