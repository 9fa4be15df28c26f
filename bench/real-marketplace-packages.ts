// The npm packages the real-marketplace benchmark builds its marketplace from (bench/real-marketplace.ts): packages
// that ship Claude Code plugins, skills, agents, commands or hooks, each at an exact version with the registry's
// integrity hash (`npm view <name>@<version> dist.integrity`), so that every run reads the same content. The first
// ten were the benchmark's first set; the others were added for a larger count of skills (several hundred of them
// come from one collection, ecc-universal).

export type PinnedPackage = Readonly<{ name: string; version: string; integrity: string }>;

export const packages: readonly PinnedPackage[] = [
  {
    name: 'oh-my-claude-sisyphus',
    version: '5.5.0',
    integrity: 'sha512-OXqzzFwPZ6CfCej1S7VM2/6rErioskmKluA+JEzRfZdKLQ3ci2iTVd/FZ7uu4UsOs9Gqs5mmtfT54jIKUqOjug==',
  },
  {
    name: 'claude-flow',
    version: '3.43.0',
    integrity: 'sha512-qaONGM4PdXHstuoXWUjVHlhJdFoNrn9TfWSVT7msEod8By5yMZpc86ww0a9l1qppyYqCG4TvsVaV7XvWnFJd/g==',
  },
  {
    name: 'claude-flow-novice',
    version: '2.21.0',
    integrity: 'sha512-Lv69iaiqj8FFcE0aQEzxAxghm5ptuWAHy31Uwlcr+Q3yiMmXn+zgtt1CUcFsYD4mRDCsC9GLVx7GQ4XVlXCEOw==',
  },
  {
    name: 'get-shit-done-cc',
    version: '1.42.3',
    integrity: 'sha512-3sQoRYFl7v7dju3LXq7sE3pnufGHF7R6xfDU1DaH2+YYe4V6+dhoaUo4KoBHvjtLQ8UATUX3hWofHg+tAUUALQ==',
  },
  {
    name: 'bmad-method',
    version: '6.12.0',
    integrity: 'sha512-gbbHo32TxCPwo4Yy70kqykFRwN5UdYqfnDKTsKAsF9m5qtLeoiCgEawj/LuzLBHLrYA0WTOyL/XWtXpgyDonMQ==',
  },
  {
    name: 'claude-code-plugins',
    version: '1.0.3',
    integrity: 'sha512-Ib43vVNxQj1RqzxVPJYm3zceRAxkFTun9pYNwbCEWe4QkhXI/wTWrBAvBtUfLjfx+4H09FfAW1UcbgHqn3TZzQ==',
  },
  {
    name: 'dantelabs-agentic-school',
    version: '1.8.1',
    integrity: 'sha512-Tv+fXS9xXdP5W09iS+ye59zRV+ZcoTiyYZ9hH+mMAb3R7M53sO1TVLW+dzqpENXe85RAX3dofP1WvRoIdyC0CA==',
  },
  {
    name: 'selfish-pipeline',
    version: '1.3.0',
    integrity: 'sha512-VvwhCwZss/379xp3/6yWCcA22HD3aZKqMZjur7ZlygPsiv2OkpiJZS2ry5xd60sphGUq1jJjwDcP+Wh9Wx15CQ==',
  },
  {
    name: '@pimzino/claude-code-spec-workflow',
    version: '1.5.9',
    integrity: 'sha512-U9o2ctclSWrGzaiALwNu6DdVZ3ebMsgpfmoAAkh3LYjbABcekC1wdPUQieVO/mCqbWoWFBFccD+OT+dZn+CP+w==',
  },
  {
    name: '@apogeelabs/the-agency',
    version: '0.11.0',
    integrity: 'sha512-k8KHrBaeX66ZdbN2kcdehAxhEghxmCz2cUgA8rK8PND9Ol9nlvL6GW20jAcOAd00bG7RirTq9nEtxra2Qia44Q==',
  },
  {
    name: 'ecc-universal',
    version: '2.0.0',
    integrity: 'sha512-Dj7vsfOiuBD58OSvRJX8w9vHbyyIS6DxvtSs2LWnUBR2Wn/UeuJ0vwpISfk10VwLpFc6KPIfzdmkPQjPy9QJMw==',
  },
  {
    name: 'cc-sdd',
    version: '3.0.2',
    integrity: 'sha512-7r9hyUhY35aeKVoqhViad28/JTT5SdDH3pPhGccY8nFpmT25+EP6vywetUwVL8wUCi3deJQBg/YcFU2gNnhC6w==',
  },
  {
    name: 'oh-my-customcode',
    version: '1.1.76',
    integrity: 'sha512-PrdYb/+2DRq0q1Az2olJfZBVufym441THZs3PC4PDUzMcfqRJencGQ7Y7R2e89uqVuowuXwJZuUxTqAVdMwLyg==',
  },
  {
    name: 'specweave',
    version: '1.0.593',
    integrity: 'sha512-QdVPAHuybsnc3wWaMu4Li/erH3pGG1vJcrfxuYLtmL4Su+jaGpQu5OLu6qFWrP7hdmNpgq1+z4c9W5lXUvoTbg==',
  },
  {
    name: '@nextsparkjs/ai-workflow',
    version: '0.1.0-beta.127',
    integrity: 'sha512-RHaUuRHVpIWbq+4A4ANPVMKWppwvJwRddFR+tZk08UL1K1qIZtfesBIzKftEtTglDkajJLNjYGMuPq33y8Fwyw==',
  },
  {
    name: 'claude-mem',
    version: '13.25.3',
    integrity: 'sha512-Hqa33Vv8YJ5fnaHzZc3HC3JihHagHji5O9R66ZBIKn3DDPOlaDfI5X2oxuSdtp7kRMsEpMc2p7wMXPEe0kZG9g==',
  },
  {
    name: 'aiblueprint-cli',
    version: '1.4.46',
    integrity: 'sha512-EnxTDgJg9Mx3MGewSe8A0ihsZtOuxE9wVlc0+2a6aPdNFacRC1vQ7u9Zyp71tCaGk1UgE341LwkRknAa1R08zg==',
  },
  {
    name: 'cc-dev-template',
    version: '0.1.109',
    integrity: 'sha512-gtPYnbeMCX2fzh4grcdK8gKGV8+Lj1sO8s5IM6Mr0RJhicxVnBWpNUjqVvUloM3uKZLaX6TvUb49TOtvnNI9uQ==',
  },
  {
    name: 'context-mode',
    version: '1.0.169',
    integrity: 'sha512-94JIaFuLjF9SO2BsGTrbGtyT44K95+9OC8BdbaL/UT76xOkanJLfUR5CzmNw+GELXZQqH4nBrKg9wjBnSFkVnQ==',
  },
  {
    name: '@houseofwolvesllc/claude-scrum-skill',
    version: '2.8.1',
    integrity: 'sha512-3yZIUVEnvYiGbwaxm6eRQHfCN6swJoEiPyRd/JngKzK4tLnI+gu6p6axAy1Xl7x0TzAJ9goCW3PMx6vyJs1uBw==',
  },
  {
    name: '@plaited/development-skills',
    version: '0.8.1',
    integrity: 'sha512-8bE+jHqk6XOtyypwAqtazJf7SI6oMSJZsRO9TUH/Vx0s3TBiJo7vlbz+pfmWzGVEvw/rCQ2ifVuEks4LOe7ZCA==',
  },
  {
    name: '@coo-quack/sensitive-canary',
    version: '0.8.1',
    integrity: 'sha512-PRYk2XZRPQTXGMHLNMQiRDGkBvdzMoOvjFG1RhDBrwlvB+nopDPalOOubq0yuNq38Xsx7TXZlGmHqkPsK56ckw==',
  },
  {
    name: 'agileflow',
    version: '3.4.3',
    integrity: 'sha512-n2esjY2b6coOMo6to/JKoaQUlmNZAVh03LzUompqW7k+WF4TfGYbbZf1s6097deWjR7/RpBMEWz3GDr52ZDWTg==',
  },
  {
    name: 'claude-dev-environment-setup',
    version: '1.4.0',
    integrity: 'sha512-LWjtqaSrbOmiR1imPtntTgiqoTnkqJRe9fmIKJjgkaTcaP7ALlB/Q4aA90o3+aerbhkWdLtNUnOjGK40NJudEA==',
  },
  {
    name: 'agent-reviews',
    version: '0.7.0',
    integrity: 'sha512-QM20yrjKOSbZGpXqEWY8w/gpRxr6djuTcqtTapU3CNp0mtsiOvZZwAL/caWFIBvHCd9kDoYdpCjiIE6+Jtz4HA==',
  },
  {
    name: 'design-clone',
    version: '3.1.1',
    integrity: 'sha512-05qeYp/l2frtyLZ9t3Rb7HCnx6A+C3f942DNc3vfON66MS4JVqhAjPSpSO2IjuyLrtnjdDx2B7sR0+Vep4fmVQ==',
  },
  {
    name: '@wednesday-solutions-eng/ai-agent-skills',
    version: '1.1.0',
    integrity: 'sha512-KYPl5aMTflV0UK9os/V9tJA7kpqZNRb0PNoG/Pfpz76WwIUFXPCeoA1qetzCh8plV3YhZjpv3KrOIdzMEUzqEQ==',
  },
];
