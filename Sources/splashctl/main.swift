import SplashCtlCommands

// splashctl's commands are in SplashCtlCommands; the executable only wires the command line to them.
await SplashCtl.runCommandLine()
