"""Spectators' work on the loop goes one piece a turn of the loop, so a
crowd's burst never keeps a player's push waiting behind all of it."""

import asyncio

from games.live.limits import SpectatorTurns


async def test_a_crowd_of_spectators_goes_one_a_turn_and_a_players_push_goes_between():
    turns = SpectatorTurns()
    order: list[str] = []

    async def spectator(n: int) -> None:
        await turns.turn()
        order.append(f"spectator {n}")

    crowd = [asyncio.create_task(spectator(n)) for n in range(5)]
    # The crowd's messages are all read in one turn of the loop; a player's
    # push comes in on the next.
    await asyncio.sleep(0)
    asyncio.get_running_loop().call_soon(order.append, "player")
    await asyncio.gather(*crowd)
    assert order[:2] == ["spectator 0", "player"], order
    assert order[2:] == [f"spectator {n}" for n in range(1, 5)]


async def test_a_spectator_gone_while_waiting_does_not_hold_up_the_rest():
    turns = SpectatorTurns()
    went: list[int] = []

    async def spectator(n: int) -> None:
        await turns.turn()
        went.append(n)

    crowd = [asyncio.create_task(spectator(n)) for n in range(4)]
    await asyncio.sleep(0)
    crowd[1].cancel()
    await asyncio.gather(*crowd, return_exceptions=True)
    assert went == [0, 2, 3]
    # Nobody waits now: the next spectator goes on at once.
    await asyncio.wait_for(turns.turn(), timeout=1)


async def test_turns_start_afresh_on_a_new_loop():
    turns = SpectatorTurns()

    def waits_on_a_loop_of_its_own() -> None:
        async def crowd() -> None:
            # Three wait; the loop ends before their turns come.
            waiting = [asyncio.ensure_future(turns.turn()) for _ in range(3)]
            await turns.turn()
            assert not any(task.done() for task in waiting)

        asyncio.run(crowd())

    await asyncio.to_thread(waits_on_a_loop_of_its_own)
    await asyncio.wait_for(turns.turn(), timeout=1)
