"""The stand-in's model: every token needs every shard, and the split does not change the answer."""

from __future__ import annotations

import unittest

from vllm.standin import toy_model


def generate(prompt: str, steps: int, world_size: int) -> list[int]:
    """Greedy decoding with the vocabulary split over world_size shards."""
    digest = toy_model.initial_digest(toy_model.tokenize(prompt))
    out: list[int] = []
    for _ in range(steps):
        partials = [
            toy_model.score_shard(toy_model.shard_ids(rank, world_size), digest, len(out))
            for rank in range(world_size)
        ]
        token_id = toy_model.merge_partials(partials)[0][0]
        out.append(token_id)
        if token_id == toy_model.EOS_ID:
            break
        digest = toy_model.advance(digest, token_id)
    return out


class ShardTests(unittest.TestCase):
    def test_shards_partition_the_vocabulary(self) -> None:
        for world_size in (1, 2, 3, 8):
            ids = [i for rank in range(world_size) for i in toy_model.shard_ids(rank, world_size)]
            self.assertEqual(sorted(ids), list(range(toy_model.VOCAB_SIZE)), world_size)

    def test_output_does_not_depend_on_the_tensor_parallel_split(self) -> None:
        for prompt in ("hello world", "The placement group waits", ""):
            reference = generate(prompt, 40, 1)
            for world_size in (2, 3, 4):
                self.assertEqual(generate(prompt, 40, world_size), reference, (prompt, world_size))

    def test_a_missing_shard_changes_the_answer(self) -> None:
        """Each shard contributes: without the winning token's shard the argmax moves."""
        digest = toy_model.initial_digest(toy_model.tokenize("hello world"))
        partials = [toy_model.score_shard(toy_model.shard_ids(r, 2), digest, 0) for r in range(2)]
        best = toy_model.merge_partials(partials)[0][0]
        owner = best % 2
        without_owner = toy_model.merge_partials([partials[1 - owner]])[0][0]
        self.assertNotEqual(best, without_owner)

    def test_sequences_end_by_themselves(self) -> None:
        lengths = [len(generate(f"prompt number {i}", 400, 2)) for i in range(30)]
        self.assertTrue(all(n < 400 for n in lengths), lengths)
        self.assertGreater(sum(lengths) / len(lengths), 5)


class TokenizerTests(unittest.TestCase):
    def test_words_and_punctuation_are_pieces(self) -> None:
        self.assertEqual(len(toy_model.tokenize("Hello, world!")), 4)

    def test_unknown_words_hash_into_the_vocabulary(self) -> None:
        ids = toy_model.tokenize("zyxwvut qwertyuiop")
        self.assertTrue(all(0 < i < toy_model.VOCAB_SIZE for i in ids))
        self.assertEqual(ids, toy_model.tokenize("ZYXWVUT qwertyuiop"))

    def test_chat_template_counts_every_message(self) -> None:
        one = toy_model.tokenize(toy_model.apply_chat_template([{"role": "user", "content": "hi"}]))
        two = toy_model.tokenize(
            toy_model.apply_chat_template(
                [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
            )
        )
        self.assertGreater(len(two), len(one))


if __name__ == "__main__":
    unittest.main()
