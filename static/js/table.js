// The live table: one websocket, server-rendered HTML in every push.
// The server decides everything; this file only sends intentions, swaps in
// the table it is sent, keeps the socket alive and speaks for screen readers.
(() => {
  "use strict";
  const root = document.getElementById("game");
  if (!root) return;
  const table = document.getElementById("table");
  const errorBox = root.querySelector("[data-error]");
  const hintSlot = () => table.querySelector("[data-hint]");
  const soundButton = root.querySelector("[data-sound]");
  const icon = document.querySelector('link[rel="icon"]');
  const announcer = root.querySelector("[data-announce]");
  const coachAnnouncer = root.querySelector("[data-coach-announce]");
  const connection = root.querySelector("[data-connection]");
  const connectionText = connection.querySelector(".connection-text");
  const chat = root.querySelector("[data-chat]");
  const chatLog = chat?.querySelector("[data-chat-log]");

  let shown = Number(root.dataset.version) || 0;
  // "Teach me": the coaching line of the hand shown (dice and rolls used),
  // asked once per step and kept across pushes that leave the hand as it is.
  let coachOn = root.dataset.coach === "1";
  let coachHand = "";
  let coachText = "";
  // The dice the server says are held, and the ones this player wants held:
  // a click shows at once, and the push that tells everyone confirms it.
  let serverHolds = new Set(currentHolds());
  let holds = new Set(serverHolds);
  // One action at a time goes out, made on the version shown: what the
  // player asks meanwhile waits for that action's push and then goes out on
  // the new version (holds collapse into the latest wish; a second click on
  // the same button is dropped), so quick clicks never meet "stale version".
  let inFlight = null;
  let queued = [];
  // The dice this page last showed as its own (in a duplicate round the
  // others' moves change the table but not this player's dice).
  let shownHand = "";
  let socket = null;
  let attempts = 0;
  // A push that never comes must not leave anyone waiting: after our own
  // action we expect a newer table soon, and in a game in play we expect to
  // hear something now and then. Either silence asks the server whether we
  // are current (a cheap "current" answer when we are).
  const ANSWER_WITHIN_MS = 3000;
  const QUIET_CHECK_MS = 30000;
  let answerTimer = null;
  let lastHeard = Date.now();

  function currentHolds() {
    return [...table.querySelectorAll(".die[aria-pressed=true]")].map((d) => Number(d.dataset.die));
  }

  function setConnection(state) {
    connection.dataset.connection = state;
    const key = "label" + state[0].toUpperCase() + state.slice(1);
    connectionText.textContent = connectionText.dataset[key];
    offline(state !== "open");
  }

  // While the socket is down nothing a player presses could reach the
  // server: the controls say so at once instead of failing on a click.
  // The table the server sends on reconnecting brings them back as they are.
  function offline(down) {
    if (down) {
      root.querySelectorAll("[data-action]:not(:disabled), .die:not(:disabled)").forEach((control) => {
        control.disabled = true;
        control.dataset.offline = "";
      });
    } else {
      root.querySelectorAll("[data-offline]").forEach((control) => {
        control.disabled = false;
        delete control.dataset.offline;
      });
    }
  }

  function socketUrl() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${root.dataset.wsPath}?lang=${root.dataset.lang}`;
  }

  function connect() {
    setConnection(attempts ? "closed" : "connecting");
    // A new socket counts as in view until this page says otherwise.
    toldAway = false;
    socket = new WebSocket(socketUrl());
    socket.addEventListener("open", () => {
      // "Live" once the table the server sends on connect is shown: until
      // then the page may still show an older version.
      // "Reconnecting…" said while the socket was down no longer holds.
      if (errorBox.textContent === connectionText.dataset.labelClosed) clearError();
    });
    socket.addEventListener("message", (event) => handle(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      setConnection("closed");
      inFlight = null;
      queued = [];
      outbox = [];
      if (event.code === 4404) return;
      // Exponential backoff with jitter; the server resends the whole table on
      // connect. The server accepts before it can refuse ("try again later"
      // while Redis is down), so only a table, not the socket opening, says
      // a try worked. Never more than 4 s apart, so a player is back soon
      // after the server is; a full server (4503) is given longer, since
      // every page it refused is retrying too.
      const [first, most] = event.code === 4503 ? [2000, 30000] : [300, 4000];
      const delay = Math.min(most, first * 2 ** attempts) * (0.5 + Math.random() / 2);
      attempts += 1;
      setTimeout(connect, delay);
    });
  }

  // The server lets each socket send a burst of messages, then a steady
  // rate, and cuts off a socket that sends faster. A player who clicks
  // quicker than that is not cut off: this page keeps a little within the
  // server's pace (network jitter can bunch what it spaces out) and holds a
  // message back until it fits.
  const pace = {
    capacity: Math.max(1, (Number(root.dataset.paceBurst) || 30) - 5),
    rate: 0.85 * (Number(root.dataset.paceRate) || 5),
  };
  pace.tokens = pace.capacity;
  pace.stamp = performance.now();
  let outbox = [];
  let paceTimer = null;

  function send(message) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      showError(connectionText.dataset.labelClosed);
      return false;
    }
    outbox.push(JSON.stringify(message));
    drain();
    return true;
  }

  function drain() {
    const now = performance.now();
    pace.tokens = Math.min(pace.capacity, pace.tokens + ((now - pace.stamp) / 1000) * pace.rate);
    pace.stamp = now;
    if (socket.readyState !== WebSocket.OPEN) {
      outbox = [];
      return;
    }
    while (outbox.length && pace.tokens >= 1) {
      pace.tokens -= 1;
      socket.send(outbox.shift());
    }
    if (outbox.length && !paceTimer) {
      const wait = ((1 - pace.tokens) / pace.rate) * 1000;
      paceTimer = setTimeout(() => {
        paceTimer = null;
        drain();
      }, Math.ceil(wait));
    }
  }

  function expectAnswer() {
    clearTimeout(answerTimer);
    answerTimer = setTimeout(resync, ANSWER_WITHIN_MS);
  }

  function resync() {
    clearTimeout(answerTimer);
    answerTimer = null;
    send({ action: "sync", version: shown });
  }

  function handle(message) {
    lastHeard = Date.now();
    if (message.type === "error") {
      clearTimeout(answerTimer);
      inFlight = null;
      queued = [];
      holds = new Set(serverHolds);
      showHolds();
      showError(message.message);
      return;
    }
    if (message.type === "chat" || message.type === "chat_log") {
      showChat(message);
      return;
    }
    if (message.type === "presence") {
      presence = message.seats;
      showPresence();
      return;
    }
    if (message.type === "current") {
      // Our action changed nothing (or its push is already shown): go on.
      inFlight = null;
      sendNext();
      return;
    }
    if (message.type === "coach") {
      if (message.version === shown && coachHand === shownHand) {
        coachText = message.text;
        showCoach();
        coachAnnouncer.textContent = message.text;
      }
      return;
    }
    if (message.type === "hint") {
      const slot = hintSlot();
      if (message.version === shown && slot) {
        slot.innerHTML = message.html;
        slot.querySelector("h3")?.setAttribute("tabindex", "-1");
        slot.querySelector("h3")?.focus({ preventScroll: true });
      }
      return;
    }
    // Any table, even one older than shown, says the socket is live.
    // The backoff starts afresh only once the server has let the socket in:
    // a socket refused right after opening keeps backing off.
    if (message.type === "table") {
      setConnection("open");
      attempts = 0;
    }
    if (message.type !== "table" || message.version < shown) return;
    if (message.rematch) {
      location.assign(location.pathname.replace(/\/g\/[^/]+\//, `/g/${message.rematch}/`));
      return;
    }
    const changed = message.version !== shown;
    // Versions come one by one; a jump means a push went missing on the way.
    const gap = shown > 0 && message.version > shown + 1;
    if (changed) clearTimeout(answerTimer);
    shown = message.version;
    root.dataset.version = String(shown);
    chatSettings(message.seat, message.state.spectator_chat);
    const wasMyTurn = myTurn();
    const wasPlaying = root.dataset.status === "playing";
    const inTable = table.contains(document.activeElement);
    const focused = focusKey(document.activeElement);
    const advice = changed ? "" : hintSlot()?.innerHTML || "";
    table.innerHTML = message.html;
    if (advice) hintSlot().innerHTML = advice;
    showFolds();
    root.dataset.status = message.status;
    const hand = JSON.stringify([message.state.dice, message.state.rolls_used]);
    const sameHand = hand === shownHand;
    shownHand = hand;
    if (changed) {
      // The game moved on: what went wrong before no longer holds.
      clearError();
      const last = message.state.last;
      // Our action is answered by the push it made; in a duplicate round
      // the others' moves come in between and answer nothing of ours.
      const othersMove =
        message.state.duplicate && message.status === "playing" && last &&
        ["roll", "hold", "score"].includes(last.kind) && last.seat !== message.seat;
      if (!othersMove) inFlight = null;
      if (message.announce) announce(message.announce);
      // A bot's move at the fast pace animates briefly; one whose turn this
      // viewer skipped shows its dice and points at once, until another seat moves.
      const bySeat = last && Number.isInteger(last.seat) ? last.seat : null;
      if (skippedSeat !== bySeat) skippedSeat = null;
      const byBot = bySeat !== null && Boolean(message.state.seats[bySeat]?.bot);
      table.firstElementChild?.classList.toggle("brisk", byBot && message.state.bot_pace === "fast");
      const quiet = bySeat !== null && skippedSeat === bySeat;
      if (!quiet && last && last.kind === "roll" && last.dice.length && !sameHand) {
        table.querySelectorAll(".die").forEach((die) => {
          if (!last.held.includes(Number(die.dataset.die))) die.classList.add("rolled");
        });
        play("roll");
      } else if (!quiet && last && last.kind === "score") {
        if (message.status !== "finished") play("score");
        landed(last, message.state);
      }
      if (wasPlaying && message.status === "finished") ended();
      if (myTurn() && !wasMyTurn) {
        play("turn");
        if (document.hidden) setIcon(true);
      }
    }
    // The server's holds, unless this player has asked for others since.
    serverHolds = new Set(message.state.held);
    if (inFlight !== "hold" && !queued.some((m) => m.action === "hold")) {
      holds = new Set(serverHolds);
    }
    showTitle();
    showHolds();
    showSkip();
    askCoach();
    showEndLine();
    showPresence();
    tellPresence();
    tickClock();
    showAbsent();
    placeFocus(focused, inTable || (engaged && document.activeElement === document.body), changed);
    showHandover();
    if (gap) resync();
    else if (changed) sendNext();
  }

  // Skipping a bot's animation is this page's own: the rest of that bot's
  // turn shows each step's dice and points at once (the steps themselves
  // still come at the game's pace, which only the host sets).
  let skippedSeat = null;
  function botTurn() {
    const turn = table.querySelector("[data-bot-turn]")?.dataset.botTurn;
    return turn === undefined ? null : Number(turn);
  }

  function skipBot() {
    const seat = botTurn();
    if (seat === null) return;
    skippedSeat = seat;
    table.querySelectorAll(".die.rolled").forEach((die) => die.classList.remove("rolled"));
    table.querySelectorAll(".gain").forEach((gain) => gain.remove());
    showSkip();
  }

  function showSkip() {
    const skip = table.querySelector("[data-skip-bot]");
    if (!skip) return;
    const skipped = skippedSeat !== null && skippedSeat === botTurn();
    skip.hidden = skipped;
    table.firstElementChild?.toggleAttribute("data-skipped", skipped);
  }

  // The line is this player's alone: asked for on their turn, after a roll,
  // when the table offers coaching (the toggle is there) and it is on.
  function coachable() {
    const turn = table.querySelector("[data-my-turn]");
    return coachOn && table.querySelector("[data-coach-toggle]") && turn && turn.dataset.myTurn !== "0";
  }

  function askCoach() {
    if (!coachable()) {
      coachHand = "";
      coachText = "";
    } else if (coachHand !== shownHand) {
      coachHand = shownHand;
      coachText = "";
      send({ action: "coach" });
    }
    showCoach();
  }

  function showCoach() {
    table.querySelector("[data-coach-toggle]")?.setAttribute("aria-pressed", String(coachOn));
    const line = table.querySelector("[data-coach-line]");
    if (!line) return;
    line.textContent = coachOn ? coachText : "";
    line.hidden = !(coachOn && coachText);
  }

  function toggleCoach() {
    coachOn = !coachOn;
    root.dataset.coach = coachOn ? "1" : "0";
    const body = new FormData();
    body.append("on", coachOn ? "1" : "0");
    fetch(root.dataset.coachUrl, {
      method: "POST", body, headers: { "X-CSRFToken": root.dataset.csrf }, credentials: "same-origin",
    }).catch(() => {});
    coachHand = "";
    if (!coachOn) coachAnnouncer.textContent = "";
    askCoach();
  }

  // A box's name opens its rule on a tap or a click (the native popover);
  // a mouse resting on it opens it too, and leaving closes it.
  table.addEventListener("pointerover", (event) => {
    const name = event.target.closest(".box-name-button");
    if (!name || event.pointerType !== "mouse") return;
    const help = document.getElementById(name.getAttribute("popovertarget"));
    if (help && !help.matches(":popover-open")) help.showPopover();
  });
  table.addEventListener("pointerout", (event) => {
    const name = event.target.closest(".box-name-button");
    if (!name || event.pointerType !== "mouse" || name.contains(event.relatedTarget)) return;
    const help = document.getElementById(name.getAttribute("popovertarget"));
    if (help?.matches(":popover-open")) help.hidePopover();
  });

  // An open rule sits just under its name (above it when the name is low on
  // the screen), inside the window: centred, it covered the row it explains.
  table.addEventListener("toggle", (event) => {
    const help = event.target;
    if (!help.classList?.contains("box-help") || event.newState !== "open") return;
    const name = table.querySelector(`[popovertarget="${help.id}"]`);
    if (!name) return;
    const at = name.getBoundingClientRect();
    const width = help.offsetWidth;
    const height = help.offsetHeight;
    const left = Math.max(8, Math.min(at.left, innerWidth - width - 8));
    const below = at.bottom + 6;
    const top = below + height <= innerHeight - 8 ? below : Math.max(8, at.top - height - 6);
    Object.assign(help.style, { margin: "0", left: `${left}px`, top: `${top}px` });
  }, true);

  function sameSet(a, b) {
    return a.length === b.size && a.every((i) => b.has(i));
  }

  function sendNext() {
    while (queued.length && !inFlight) {
      const next = queued.shift();
      if (next.action === "hold" && sameSet(next.dice, serverHolds)) continue;
      transmit(next);
    }
  }

  function request(message) {
    if (inFlight) {
      if (message.action === "hold") queued = queued.filter((m) => m.action !== "hold");
      else if (message.action === inFlight || queued.some((m) => m.action === message.action)) return;
      queued.push(message);
      return;
    }
    transmit(message);
  }

  function transmit(message) {
    if (!send({ ...message, version: shown })) return;
    if (message.action === "hint" || message.action === "sync") return;
    inFlight = message.action;
    expectAnswer();
  }

  const calm = window.matchMedia("(prefers-reduced-motion: reduce)");

  // A score lands on its box with a brief "+points"; a Yacht (in its box,
  // or a second one scored elsewhere for its bonus) gets a burst too.
  function landed(last, state) {
    const cell = table.querySelector(`[data-cell="${last.seat}-${last.category}"]`);
    if (!cell) return;
    const gain = document.createElement("span");
    gain.className = "gain";
    gain.setAttribute("aria-hidden", "true");
    gain.textContent = `+${last.points}`;
    cell.classList.add("landed");
    cell.append(gain);
    const seat = state.seats.find((s) => s.order === last.seat);
    const fiveAlike = last.dice.length === 5 && last.dice.every((d) => d === last.dice[0]);
    const yacht = last.category === "yacht" ? last.points > 0 : fiveAlike && (seat?.boxes.yacht || 0) > 0;
    if (yacht) {
      play("yacht");
      if (!calm.matches) burst(cell);
    }
  }

  function burst(cell) {
    const spark = document.createElement("span");
    spark.className = "yacht-burst";
    spark.setAttribute("aria-hidden", "true");
    for (let i = 0; i < 12; i += 1) {
      const ray = document.createElement("span");
      ray.style.setProperty("--turn", `${i / 12}turn`);
      spark.append(ray);
    }
    cell.append(spark);
  }

  // The last box is scored: a fanfare, the totals counted up from nothing,
  // and on a phone (where the card was scrolled to the last box) the result
  // brought to the top of the screen.
  function ended() {
    play("end");
    const title = table.querySelector(".result-title");
    if (title && title.getBoundingClientRect().top < 0) {
      title.scrollIntoView({ block: "start", behavior: calm.matches ? "auto" : "smooth" });
    }
    table.querySelectorAll("[data-count-up]").forEach(countUp);
  }

  const COUNT_MS = 1400;
  function countUp(element) {
    const total = Number(element.dataset.countUp);
    const done = () => {
      element.textContent = String(total);
      element.dataset.counted = "";
    };
    if (calm.matches || !total) return done();
    const start = performance.now();
    element.textContent = "0";
    const step = (now) => {
      if (!element.isConnected) return;
      const share = Math.min(1, (now - start) / COUNT_MS);
      if (share >= 1) return done();
      // Quick at first, slowing toward the total, as a tally settles.
      element.textContent = String(Math.round(total * (1 - (1 - share) ** 3)));
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  // The end's own line (the review's verdict, the day's place) is asked of
  // the server once per page: pushes re-render the table, the line stays.
  let endLine = null;
  function showEndLine() {
    const slot = table.querySelector("[data-end-line]");
    if (!slot) return;
    if (endLine !== null) {
      slot.innerHTML = endLine;
      return;
    }
    endLine = "";
    fetch(slot.dataset.endLine, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : ""))
      .then((html) => {
        endLine = html.trim();
        const now = table.querySelector("[data-end-line]");
        if (now) now.innerHTML = endLine;
      })
      .catch(() => { endLine = null; });
  }

  // A folded panel (a duplicate round's progress and results on a phone)
  // stays as the player left it across pushes.
  const openFolds = new Set();
  function showFolds() {
    table.querySelectorAll("[data-fold]").forEach((chip) => {
      const open = openFolds.has(chip.dataset.fold);
      chip.setAttribute("aria-expanded", String(open));
      document.getElementById(chip.dataset.fold)?.toggleAttribute("data-open", open);
    });
  }

  // Share: the system's share sheet where the browser has one; the panel
  // with the link and Copy where it has none (or the sheet fails).
  const share = root.querySelector(".share");
  share?.querySelector("summary").addEventListener("click", (event) => {
    if (!navigator.share || share.open) return;
    event.preventDefault();
    const url = share.querySelector("input").value;
    navigator.share({ title: document.title, url }).catch((error) => {
      if (error.name !== "AbortError") share.open = true;
    });
  });

  // Focus is moved for a player who has used the page, never for one who
  // only watches (a screen reader would repeat the heading at every push).
  let engaged = false;
  ["keydown", "pointerdown"].forEach((kind) =>
    document.addEventListener(kind, () => { engaged = true; }, { capture: true }),
  );

  function myTurn() {
    return Boolean(table.querySelector("[data-my-turn]"));
  }

  // After every update focus lands where the player's next step is: the
  // control they used if it is still there, else (if the swap took focus
  // away) the roll button, after the last roll the box that scores most, and
  // while others play the heading that says whose turn it is.
  function placeFocus(key, lost, changed) {
    const again = key && table.querySelector(key);
    if (again && !again.disabled) {
      again.focus({ preventScroll: true });
      return;
    }
    if (!lost || !changed) return;
    nextUseful()?.focus({ preventScroll: true });
  }

  function nextUseful() {
    const mine = table.querySelector("[data-my-turn]");
    const roll = table.querySelector('[data-action="roll"]:not([disabled]), [data-keypad] [data-face]');
    if (mine && roll && Number(mine.dataset.myTurn) === 0) return roll;
    if (mine && !roll) return table.querySelector(".box.best") || table.querySelector(".box");
    if (mine) return roll;
    return (
      table.querySelector('[data-action="start"], [data-action="rematch"]') ||
      table.querySelector(".turn-title, .result-title")
    );
  }

  // Pass and play: the screen that asks for the device to reach the person
  // to move comes once per turn. Once tapped it stays away for that turn,
  // through pushes and a refresh of this tab.
  const HANDED_KEY = `yacht-handed-${location.pathname}`;
  function handedTurn() {
    try { return sessionStorage.getItem(HANDED_KEY); } catch (e) { return null; }
  }
  function showHandover() {
    const screen = table.querySelector("[data-handover]");
    if (!screen) return;
    if (screen.dataset.handover === handedTurn()) {
      screen.remove();
      return;
    }
    screen.querySelector("[data-handover-ready]")?.focus({ preventScroll: true });
  }
  function handedOver() {
    const screen = table.querySelector("[data-handover]");
    if (!screen) return;
    try { sessionStorage.setItem(HANDED_KEY, screen.dataset.handover); } catch (e) { /* private mode: asked again on a refresh */ }
    screen.remove();
    play("turn");
    nextUseful()?.focus({ preventScroll: true });
  }

  function showTitle() {
    const title = table.querySelector("[data-title]")?.dataset.title;
    if (title) document.title = title;
  }

  function setIcon(turn) {
    if (icon) icon.href = turn ? root.dataset.iconTurn : root.dataset.icon;
  }

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) setIcon(false);
    tellPresence();
  });

  // Who is at the table: each person's seat shows the state the server last
  // pushed (a seat it does not list has nobody here). Kept across tables,
  // since presence is not part of the game's version.
  let presence = null;
  function showPresence() {
    if (!presence) return;
    const words = table.querySelector(".table-inner")?.dataset || {};
    table.querySelectorAll("[data-presence]").forEach((mark) => {
      const state = presence[mark.dataset.presence] || "gone";
      if (mark.dataset.state === state) return;
      mark.dataset.state = state;
      mark.querySelector(".presence-text").textContent =
        words["presence" + state[0].toUpperCase() + state.slice(1)] || "";
      mark.closest("li").dataset.presenceState = state;
    });
  }

  // This player's own presence: away while the page is hidden or has had no
  // input for IDLE_MS (two minutes: longer than a turn's thinking usually
  // takes); the server counts a socket in view until told otherwise.
  const IDLE_MS = 120000;
  let lastInput = Date.now();
  let toldAway = false;
  function tellPresence() {
    const seated = table.querySelector(".table-inner")?.dataset.seat !== undefined;
    const away = document.hidden || Date.now() - lastInput >= IDLE_MS;
    if (!seated || away === toldAway || !socket || socket.readyState !== WebSocket.OPEN) return;
    toldAway = away;
    send({ action: "presence", away: away ? 1 : 0 });
  }
  ["pointerdown", "pointermove", "keydown", "wheel", "touchstart"].forEach((kind) =>
    document.addEventListener(kind, () => {
      lastInput = Date.now();
      if (toldAway) tellPresence();
    }, { passive: true }),
  );
  setInterval(tellPresence, 5000);

  // Short sounds made on the spot (no files): a rattle for a roll, two notes
  // for a score, three rising ones when it becomes your turn, a sparkle for
  // a Yacht and a fanfare at the end. One toggle
  // mutes them, remembered in this browser.
  let audio = null;
  let soundOn = localStorage.getItem("yacht-sound") !== "off";

  function showSound() {
    soundButton?.setAttribute("aria-pressed", String(soundOn));
  }

  soundButton?.addEventListener("click", () => {
    soundOn = !soundOn;
    localStorage.setItem("yacht-sound", soundOn ? "on" : "off");
    showSound();
  });

  function note(frequency, at, length, type = "sine", volume = 0.06) {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.type = type;
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(volume, audio.currentTime + at);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + at + length);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(audio.currentTime + at);
    oscillator.stop(audio.currentTime + at + length);
  }

  function play(kind) {
    if (!soundOn || !window.AudioContext) return;
    try {
      audio ||= new AudioContext();
      if (audio.state === "suspended") audio.resume();
      if (kind === "roll") {
        for (let i = 0; i < 6; i += 1) note(180 + Math.random() * 420, i * 0.045, 0.05, "triangle", 0.05);
      } else if (kind === "score") {
        note(660, 0, 0.12);
        note(880, 0.1, 0.2);
      } else if (kind === "yacht") {
        [784, 988, 1175, 1568].forEach((f, i) => note(f, 0.18 + i * 0.06, 0.18, "triangle", 0.05));
      } else if (kind === "end") {
        // A short fanfare: a rising arpeggio, then the chord held.
        [523, 659, 784].forEach((f, i) => note(f, i * 0.13, 0.16, "triangle"));
        [523, 659, 784, 1047].forEach((f) => note(f, 0.42, 0.9, "sine", 0.04));
      } else {
        note(523, 0, 0.12);
        note(659, 0.1, 0.12);
        note(784, 0.2, 0.25);
      }
    } catch {
      // No sound where the browser will not make it; the game goes on.
    }
  }

  function focusKey(element) {
    if (!element || !table.contains(element)) return null;
    if (element.dataset.die) return `.die[data-die="${element.dataset.die}"]`;
    if (element.dataset.category) return `[data-category="${element.dataset.category}"]`;
    if (element.dataset.action) return `[data-action="${element.dataset.action}"]`;
    if (element.dataset.face) return `[data-face="${element.dataset.face}"]`;
    if (element.matches("[data-keypad-enter], [data-keypad-undo]")) return "[data-keypad-enter]";
    return null;
  }

  function showHolds() {
    table.querySelectorAll(".die").forEach((die) => {
      const held = holds.has(Number(die.dataset.die));
      die.classList.toggle("held", held);
      die.setAttribute("aria-pressed", String(held));
      die.setAttribute("aria-label", held ? die.dataset.labelHeld : die.dataset.labelFree);
    });
    showKeypad();
  }

  // A game of real dice: the faces tapped in for the next throw, in the
  // places not kept. They stay through every push and a refused entry
  // until the throw is entered (the turn's key, which counts throws, moves on).
  let typed = [];
  let typedFor = "";

  function freePlaces() {
    return [0, 1, 2, 3, 4].filter((i) => !holds.has(i));
  }

  function showKeypad() {
    const pad = table.querySelector("[data-keypad]");
    if (!pad) return;
    if (pad.dataset.turn !== typedFor) {
      typedFor = pad.dataset.turn;
      typed = [];
    }
    const dice = pad.dataset.dice ? pad.dataset.dice.split(",").map(Number) : [];
    const free = freePlaces();
    typed = typed.slice(0, free.length);
    pad.querySelectorAll("[data-slot]").forEach((slot) => {
      const place = Number(slot.dataset.slot);
      const at = free.indexOf(place);
      const kept = at < 0;
      slot.textContent = kept ? String(dice[place]) : at < typed.length ? String(typed[at]) : "";
      slot.classList.toggle("keypad-kept", kept);
      slot.classList.toggle("keypad-filled", !kept && at < typed.length);
    });
    pad.querySelector("[data-keypad-undo]").disabled = typed.length === 0;
    pad.querySelector("[data-keypad-enter]").disabled = typed.length < free.length;
    pad.querySelectorAll("[data-face]").forEach((face) => {
      face.disabled = typed.length >= free.length;
    });
  }

  function typeFace(face) {
    if (!table.querySelector("[data-keypad]")) return false;
    if (typed.length < freePlaces().length) typed.push(face);
    showKeypad();
    return true;
  }

  function untype() {
    typed.pop();
    showKeypad();
  }

  function enterThrow() {
    const pad = table.querySelector("[data-keypad]");
    const free = freePlaces();
    if (!pad || typed.length < free.length) return false;
    const dice = pad.dataset.dice ? pad.dataset.dice.split(",").map(Number) : [];
    const faces = [0, 1, 2, 3, 4].map((i) => (holds.has(i) ? dice[i] : typed[free.indexOf(i)]));
    request({ action: "enter", dice: faces, hold: [...holds].sort() });
    return true;
  }

  function toggleHold(index) {
    const die = table.querySelector(`.die[data-die="${index}"]`);
    if (!die || die.disabled) return;
    if (holds.has(index)) holds.delete(index);
    else holds.add(index);
    showHolds();
    request({ action: "hold", dice: [...holds].sort() });
  }

  // Any action, the same way: the version shown (the server reads it where
  // the action carries one), the button's fixed fields (data-args, JSON), and
  // the fields the player sets on the page, each from its element marked
  // data-param for this action: a select's value, or a group's pressed dice.
  // A field inside a form belongs to that form's own button only.
  function act(button) {
    const action = button.dataset.action;
    const message = { action, ...JSON.parse(button.dataset.args || "{}") };
    root.querySelectorAll(`[data-for="${action}"][data-param]`).forEach((element) => {
      if (element.form && element.form !== button.form) return;
      message[element.dataset.param] = element.value;
    });
    // A chat line is answered by a chat push, not a new table: it goes at
    // once, beside whatever move is waiting for its push.
    if (action === "chat") return send({ ...message, version: shown });
    // Asked again, the advisor closes: on a phone it covers the card.
    if (action === "hint" && hintSlot()?.innerHTML) {
      hintSlot().innerHTML = "";
      return true;
    }
    request(message);
    return true;
  }

  // The table's chat: lines arrive rendered in this page's language (a
  // quick phrase in the reader's own words) and are added in order.
  function showChat(message) {
    if (!chatLog) return;
    const atBottom = chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 24;
    if (message.type === "chat_log") {
      chatLog.innerHTML = message.html;
    } else if (!chatLog.querySelector(`[data-chat-id="${message.id}"]`)) {
      chatLog.insertAdjacentHTML("beforeend", message.html);
      if (chat.classList.contains("chat-hidden")) {
        unread += 1;
        const toggle = chat.querySelector("[data-chat-toggle]");
        toggle.textContent = `${toggle.dataset.labelShow} (${unread})`;
      } else if (!chatInView()) {
        // On a phone the chat is below the table: say so where the player looks.
        unseen += 1;
        jump.querySelector("[data-chat-jump-count]").textContent = `(${unseen})`;
        jump.hidden = false;
      }
    }
    chat.querySelector("[data-chat-none]").hidden = chatLog.children.length > 0;
    if (atBottom || message.type === "chat_log") chatLog.scrollTop = chatLog.scrollHeight;
  }

  const jump = root.querySelector("[data-chat-jump]");
  let unseen = 0;
  function chatInView() {
    const box = chatLog.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }
  function chatSeen() {
    unseen = 0;
    jump.hidden = true;
  }
  if (jump) {
    jump.addEventListener("click", chatSeen);
    window.addEventListener("scroll", () => { if (!jump.hidden && chatInView()) chatSeen(); }, { passive: true });
  }

  // Who may write follows the table: a spectator only while the host lets them.
  function chatSettings(seat, spectatorsMayChat) {
    if (!chat) return;
    const open = seat !== null || spectatorsMayChat;
    chat.querySelector("[data-chat-compose]").hidden = !open;
    chat.querySelector("[data-chat-closed]").hidden = open;
    chat.querySelectorAll("[data-chat-when]").forEach((button) => {
      button.hidden = (button.dataset.chatWhen === "open") !== spectatorsMayChat;
    });
  }

  // Anyone may hide the chat for themselves; this browser remembers it.
  const CHAT_HIDDEN_KEY = "yacht.chatHidden";
  let unread = 0;
  function chatHidden(hidden) {
    unread = 0;
    const toggle = chat.querySelector("[data-chat-toggle]");
    chat.classList.toggle("chat-hidden", hidden);
    chat.querySelector(".chat-body").hidden = hidden;
    toggle.setAttribute("aria-expanded", String(!hidden));
    toggle.textContent = hidden ? toggle.dataset.labelShow : toggle.dataset.labelHide;
  }
  if (chat) {
    let stored = null;
    try { stored = localStorage.getItem(CHAT_HIDDEN_KEY); } catch (e) { stored = null; }
    chatHidden(stored === "1");
    chat.querySelector("[data-chat-toggle]").addEventListener("click", () => {
      const hidden = !chat.classList.contains("chat-hidden");
      chatHidden(hidden);
      try { localStorage.setItem(CHAT_HIDDEN_KEY, hidden ? "1" : "0"); } catch (e) { /* private mode: not remembered */ }
    });
    chat.querySelector("[data-chat-form]").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = chat.querySelector("#chat-text");
      if (!input.value.trim()) return;
      if (act(event.target.querySelector("[data-action]"))) input.value = "";
    });
    if (chatLog) chatLog.scrollTop = chatLog.scrollHeight;
  }

  setInterval(() => {
    const status = table.querySelector("[data-status]")?.dataset.status;
    if (status !== "finished" && Date.now() - lastHeard >= QUIET_CHECK_MS) {
      lastHeard = Date.now();
      resync();
    }
  }, 5000);

  // The turn clock counts down to the deadline the server set (and
  // enforces), on the server's time: the page learnt the difference between
  // the two clocks when it loaded. When it reaches zero and no table has
  // come to say so, the page asks, and the server acts on the deadline.
  // The server's clock was read as the page's response began to arrive.
  function skew() {
    const serverNow = Number(root.dataset.serverNow || 0);
    if (!serverNow) return 0;
    const navigation = performance.getEntriesByType?.("navigation")[0];
    const arrived = navigation ? performance.timeOrigin + navigation.responseStart : Date.now();
    return serverNow - arrived / 1000;
  }
  const clockSkew = skew();
  let askedAtZero = 0;
  function tickClock() {
    const clock = table.querySelector("[data-deadline]");
    if (!clock) return;
    const seconds = Number(clock.dataset.seconds || 1);
    const left = Math.min(seconds, Math.max(0, Number(clock.dataset.deadline) - (Date.now() / 1000 + clockSkew)));
    const whole = Math.ceil(left);
    clock.querySelector("[data-clock-text]").textContent = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
    const share = (100 * left) / seconds;
    clock.querySelector(".turn-clock-left")?.setAttribute("stroke-dasharray", `${share.toFixed(1)} 100`);
    clock.classList.toggle("turn-clock-low", left <= 10);
    if (left <= 0 && Number(clock.dataset.deadline) !== askedAtZero && Date.now() / 1000 + clockSkew > Number(clock.dataset.deadline) + 1.5) {
      askedAtZero = Number(clock.dataset.deadline);
      resync();
    }
  }
  setInterval(tickClock, 250);

  // A stalled turn: the others' "let a bot play" notice appears when the
  // grace period is over (the server checks the time again).
  function showAbsent() {
    const absent = table.querySelector("[data-absent-from]");
    if (absent && Date.now() / 1000 >= Number(absent.dataset.absentFrom)) absent.hidden = false;
  }
  setInterval(showAbsent, 1000);

  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
  }

  function clearError() {
    errorBox.hidden = true;
    errorBox.textContent = "";
  }

  function announce(text) {
    // Clearing first makes screen readers repeat an identical sentence.
    announcer.textContent = "";
    setTimeout(() => { announcer.textContent = text; }, 50);
  }

  // The second click of a double click belongs to the control the first
  // click was on. A push that lands between the two can put another control
  // under the pointer (the first roll brings the dice where the pointer is):
  // that control is left alone.
  let firstClick = null;
  root.addEventListener("click", (event) => {
    if (event.target.closest("[data-handover-ready]")) {
      handedOver();
      return;
    }
    // A control behind the hand-over screen, reached by Tab, plays nothing.
    if (table.querySelector("[data-handover]") && !event.target.closest("[data-handover]")) return;
    if (event.target.closest("[data-coach-toggle]")) {
      toggleCoach();
      return;
    }
    const fold = event.target.closest("[data-fold]");
    if (fold) {
      if (openFolds.has(fold.dataset.fold)) openFolds.delete(fold.dataset.fold);
      else openFolds.add(fold.dataset.fold);
      showFolds();
      return;
    }
    // The skip button, or a tap on the tray while a bot plays.
    if (event.target.closest("[data-skip-bot]") || (botTurn() !== null && event.target.closest(".tray"))) {
      skipBot();
      return;
    }
    // The keypad takes every tap: two quick taps on 6 are two dice showing 6.
    const face = event.target.closest("[data-face]");
    if (face) {
      typeFace(Number(face.dataset.face));
      return;
    }
    if (event.target.closest("[data-keypad-undo]")) {
      untype();
      return;
    }
    if (event.target.closest("[data-keypad-enter]")) {
      enterThrow();
      return;
    }
    const die = event.target.closest(".die");
    const key = focusKey(die || event.target.closest("[data-action]"));
    if (event.detail < 2) firstClick = key;
    else if (key !== firstClick) return;
    if (die && !die.disabled && table.contains(die)) {
      toggleHold(Number(die.dataset.die));
      return;
    }
    const button = event.target.closest("[data-action]");
    // A form's button acts through the form's submit (Enter does too); the
    // second click of a double click asks nothing more.
    if (button && !button.disabled && !button.form && event.detail < 2) act(button);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Nobody plays a turn from under the hand-over screen, keys included.
    if (table.querySelector("[data-handover]")) return;
    if (event.target.closest("input, textarea, select")) return;
    if (table.querySelector("[data-keypad]") && keypadKey(event)) {
      event.preventDefault();
      return;
    }
    if (event.key === "r" || event.key === "R") {
      const roll = table.querySelector('[data-action="roll"]:not([disabled])');
      if (roll) {
        event.preventDefault();
        act(roll);
      }
    } else if (/^[1-5]$/.test(event.key)) {
      event.preventDefault();
      toggleHold(Number(event.key) - 1);
    }
  });

  // With real dice, 1-6 type a face (a die is kept by clicking it),
  // Backspace takes the last one back, and Enter sends a full throw unless
  // focus is on a box or another control of its own.
  function keypadKey(event) {
    if (/^[1-6]$/.test(event.key)) return typeFace(Number(event.key));
    if (event.key === "Backspace") {
      untype();
      return true;
    }
    if (event.key !== "Enter") return false;
    const own = event.target.closest("button, a, summary");
    if (own && !own.closest("[data-keypad]")) return false;
    enterThrow();
    return true;
  }

  showSound();
  showKeypad();
  showHandover();
  showAbsent();
  showCoach();
  showEndLine();
  connect();
})();
