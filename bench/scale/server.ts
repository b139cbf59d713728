process.on("disconnect", () => process.exit(0));
